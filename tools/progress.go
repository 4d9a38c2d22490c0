package tools

import "context"

type progressKey struct{}

// WithProgress returns ctx carrying fn, to which a call's Run reports how
// far it got.
func WithProgress(ctx context.Context, fn func(text string)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// Progress reports how far a call got ("page 3 of 10") to whoever listens
// on ctx; nothing when nobody does.
func Progress(ctx context.Context, text string) {
	if fn, ok := ctx.Value(progressKey{}).(func(string)); ok {
		fn(text)
	}
}
