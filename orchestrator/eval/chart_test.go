package eval

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestChartsAt80Columns: each bar fits in 80 columns, is full to its rate
// and shaded over its interval, and gives its figures.
func TestChartsAt80Columns(t *testing.T) {
	e := experimentOf(4, 5, "qwen3-coder:30b-a3b-q4_K_M",
		"fix-failing-unit-test-in-python:1:met", "fix-failing-unit-test-in-python:2:met",
		"fix-failing-unit-test-in-python:3:met", "fix-failing-unit-test-in-python:4:limit",
		"fix-failing-unit-test-in-python:5:limit", "b:1:met", "b:2:met", "b:3:met", "b:4:met", "b:5:met")
	var out bytes.Buffer
	WriteCharts(&out, ShowCharts(e, time.Now()), 80)
	text := out.String()
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("%d columns: %q", n, line)
		}
	}
	for _, want := range []string{
		"goal met, per model\n  qwen3-coder:30b-a3b-q4_K_M  ",
		"  8/10  80%  49–94%\n",
		"goal met, per task: qwen3-coder:30b-a3b-q4_K_M\n  fix-failing-unit-test-in-…  ",
		"  3/5  60%  23–88%\n",
		"  5/5 100%  57–100%\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the charts lack %q:\n%s", want, text)
		}
	}
	// 3 of 5: full to 23%, shaded to 60%, then lighter to 88%, blank after.
	bar := drawBar(newBar("x", 3, 5), 100)
	if strings.Count(bar, "█") != 23 || strings.Count(bar, "▓") != 37 || strings.Count(bar, "░") != 28 ||
		!strings.HasSuffix(bar, " ") {
		t.Errorf("3 of 5 drawn as %q", bar)
	}
	if got := drawBar(newBar("x", 0, 0), 5); got != "·····" {
		t.Errorf("nothing run drawn as %q", got)
	}
}

func TestCompareCharts(t *testing.T) {
	a := experimentOf(1, 1, "m", "x:1:met", "y:1:limit")
	b := experimentOf(2, 1, "m", "x:1:met", "y:1:met")
	var out bytes.Buffer
	WriteCharts(&out, CompareCharts(a, b, time.Now()), 80)
	for _, want := range []string{"goal met, per model: experiment 1, then 2\n  m #1 ", "\n  m #2 ",
		"goal met, per task: m, experiment 1, then 2\n  x #1 ", "\n  y #1 ", "0/1   0%  0–79%", "\n  y #2 "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the charts lack %q:\n%s", want, out.String())
		}
	}
}

// TestHTML: the page holds the charts in SVG and the report, and fetches
// nothing.
func TestHTML(t *testing.T) {
	e := experimentOf(4, 5, "m<&>", "a:1:met", "a:2:met", "a:3:met", "a:4:limit", "a:5:limit")
	var out bytes.Buffer
	if err := WriteHTML(&out, "experiment 4", "m<&> report", ShowCharts(e, time.Now())); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	for _, want := range []string{"<!DOCTYPE html>", "<svg ", `<rect class="rate" x="200" y="4" width="300.0"`,
		`<line class="interval" x1="315.4" x2="641.2"`, "3/5 60% (23%–88%)", "m&lt;&amp;&gt; report", "<h2>goal met, per task: m&lt;&amp;&gt;</h2>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	for _, never := range []string{"<script", "src=", "href=", "http:", "https:", "@import", "url("} {
		if strings.Contains(page, never) {
			t.Errorf("the page has %q: it would not open offline", never)
		}
	}
}
