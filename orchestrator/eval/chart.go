package eval

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"lathe/orchestrator/session"
)

// Bar is one bar of a chart: a goal-met rate over attempts, with its 95%
// Wilson interval.
type Bar struct {
	Label     string  `json:"label"`
	Met       int     `json:"goal_met"`
	Ended     int     `json:"ended"`
	Rate      float64 `json:"rate"`
	Low, High float64
}

func newBar(label string, met, ended int) Bar {
	b := Bar{Label: label, Met: met, Ended: ended}
	if ended > 0 {
		b.Rate = float64(met) / float64(ended)
	}
	b.Low, b.High = Wilson(met, ended)
	return b
}

// Chart is a titled set of bars.
type Chart struct {
	Title string
	Bars  []Bar
}

// ShowCharts are experiment e's charts: the goal-met rate per model, then
// per task for each model.
func ShowCharts(e session.Experiment, now time.Time) []Chart {
	sums := Summarize(e, now)
	models := Chart{Title: "goal met, per model"}
	var out []Chart
	for _, s := range sums {
		models.Bars = append(models.Bars, newBar(s.Model.Name, s.Met, s.Ended))
	}
	out = append(out, models)
	for _, s := range sums {
		c := Chart{Title: "goal met, per task: " + s.Model.Name}
		for _, t := range s.Tasks {
			if t.Ended > 0 {
				c.Bars = append(c.Bars, newBar(t.Task, t.Met, t.Ended))
			}
		}
		if len(c.Bars) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// CompareCharts are the charts of experiments a and b side by side: each
// model they share, then each of its tasks, before and after.
func CompareCharts(a, b session.Experiment, now time.Time) []Chart {
	var out []Chart
	models := Chart{Title: fmt.Sprintf("goal met, per model: experiment %d, then %d", a.ID, b.ID)}
	for _, p := range pairModels(Summarize(a, now), Summarize(b, now)) {
		models.Bars = append(models.Bars, newBar(fmt.Sprintf("%s #%d", p[0].Model.Name, a.ID), p[0].Met, p[0].Ended),
			newBar(fmt.Sprintf("%s #%d", p[1].Model.Name, b.ID), p[1].Met, p[1].Ended))
		c := Chart{Title: fmt.Sprintf("goal met, per task: %s, experiment %d, then %d", p[0].Model.Name, a.ID, b.ID)}
		for _, ta := range p[0].Tasks {
			tb, ok := findTask(p[1].Tasks, ta.Task)
			if !ok || ta.Ended == 0 && tb.Ended == 0 {
				continue
			}
			c.Bars = append(c.Bars, newBar(fmt.Sprintf("%s #%d", ta.Task, a.ID), ta.Met, ta.Ended),
				newBar(fmt.Sprintf("%s #%d", tb.Task, b.ID), tb.Met, tb.Ended))
		}
		out = append(out, c)
	}
	return append([]Chart{models}, out...)
}

// chartLegend says what the bars' shades mean.
const chartLegend = "bars: █▓ the goal-met rate, ▓░ its 95% Wilson interval"

// WriteCharts draws charts as text width columns wide: per bar its
// label, the bar and its figures ("3/5  60%  23–88%").
func WriteCharts(w io.Writer, charts []Chart, width int) {
	label := 8
	for _, c := range charts {
		for _, b := range c.Bars {
			label = max(label, utf8.RuneCountInString(b.Label))
		}
	}
	const figures = 22 // "  12/20  60%  36–81%" and room
	label = min(label, max(12, width/3))
	bar := max(10, width-2-label-2-figures)
	fmt.Fprintln(w, chartLegend)
	for _, c := range charts {
		fmt.Fprintf(w, "\n%s\n", c.Title)
		for _, b := range c.Bars {
			fmt.Fprintf(w, "  %s  %s  %s\n", padRight(clip(b.Label, label), label), drawBar(b, bar), figuresOf(b))
		}
	}
}

// drawBar draws b in n cells: full to the rate, its interval shaded.
func drawBar(b Bar, n int) string {
	var s strings.Builder
	for i := range n {
		x := (float64(i) + 0.5) / float64(n)
		switch {
		case b.Ended == 0:
			s.WriteRune('·')
		case x < b.Low:
			s.WriteRune('█')
		case x < b.Rate:
			s.WriteRune('▓')
		case x < b.High:
			s.WriteRune('░')
		default:
			s.WriteRune(' ')
		}
	}
	return s.String()
}

func figuresOf(b Bar) string {
	if b.Ended == 0 {
		return "not run"
	}
	return fmt.Sprintf("%d/%d %4s  %s–%s", b.Met, b.Ended, percent(b.Rate), percentNumber(b.Low), percent(b.High))
}

func percentNumber(f float64) string { return fmt.Sprintf("%.0f", 100*f) }

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func padRight(s string, n int) string {
	return s + strings.Repeat(" ", max(0, n-utf8.RuneCountInString(s)))
}
