package config

import (
	"math"
	"reflect"
)

// Map returns the options as Ollama's request "options" object: every field
// that was set, under its TOML (= Ollama) name, with numCtx as num_ctx.
// JSON encoding sorts map keys, so the result encodes the same bytes every
// time.
func (o Options) Map(numCtx int) map[string]any {
	m := map[string]any{"num_ctx": numCtx}
	v := reflect.ValueOf(o)
	t := v.Type()
	for i := range t.NumField() {
		f := v.Field(i)
		if f.Kind() != reflect.Pointer || f.IsNil() {
			continue
		}
		m[t.Field(i).Tag.Get("toml")] = f.Elem().Interface()
	}
	return m
}

// badFloat is the name of the first option that is NaN or infinite, which
// no request could carry; "" when there is none.
func (o Options) badFloat() string {
	v := reflect.ValueOf(o)
	t := v.Type()
	for i := range t.NumField() {
		f := v.Field(i)
		if f.Kind() != reflect.Pointer || f.IsNil() || f.Elem().Kind() != reflect.Float64 {
			continue
		}
		if x := f.Elem().Float(); math.IsNaN(x) || math.IsInf(x, 0) {
			return t.Field(i).Tag.Get("toml")
		}
	}
	return ""
}
