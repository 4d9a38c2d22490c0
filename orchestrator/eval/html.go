package eval

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
)

// pageTemplate is the page of lathe eval show --html and compare --html:
// one file, its styles inline, the bars drawn in SVG, nothing fetched.
//
//go:embed chart.html.tmpl
var pageTemplate string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"pct":   func(f float64) string { return percent(f) },
	"x":     func(f float64) string { return fmt.Sprintf("%.1f", 200+500*f) },
	"w":     func(a, b float64) string { return fmt.Sprintf("%.1f", 500*max(0, b-a)) },
	"plus":  func(a, b int) int { return a + b },
	"times": func(a, b int) int { return a * b },
}).Parse(pageTemplate))

// WriteHTML writes charts as a self-contained HTML page titled title;
// text holds the report as show or compare prints it, under the charts.
func WriteHTML(w io.Writer, title, text string, charts []Chart) error {
	return page.Execute(w, struct {
		Title  string
		Text   string
		Charts []Chart
	}{title, text, charts})
}
