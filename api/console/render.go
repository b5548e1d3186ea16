package console

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/recbid/dspd/api/tokens"
)

// pageData is what every page's template gets.
type pageData struct {
	Title    string
	Nav      string // the active section: campaigns or exchanges
	Who      tokens.Token
	CSRF     string
	CanWrite bool
	Next     string
	Error    string
	Flash    string
	Day      string

	Campaigns *campaignsView
	Campaign  *campaignView
	Exchanges *exchangesView
}

var pageNames = []string{"login", "campaigns", "campaign", "exchanges"}

func parsePages() map[string]*template.Template {
	funcs := template.FuncMap{
		"money": money, "num": num, "pct": pct, "rate": rate, "when": when,
		"add": func(a, b int) int { return a + b },
	}
	out := map[string]*template.Template{}
	for _, name := range pageNames {
		out[name] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html"))
	}
	return out
}

// render executes a page, with the session's name, role and CSRF token.
func (c *console) render(w http.ResponseWriter, r *http.Request, status int, name string, d pageData) {
	if ss := sessionOf(r); ss != nil {
		d.Who, d.CSRF, d.CanWrite = ss.who, ss.csrf, ss.who.Role.Allows(tokens.Write)
	}
	var b bytes.Buffer
	if err := c.pages[name].Execute(&b, d); err != nil {
		c.log.Error("console: a page could not be rendered", "page", name, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// money formats micros of a currency unit as dollars and cents.
func money(micros int64) string {
	neg := micros < 0
	if neg {
		micros = -micros
	}
	cents := (micros + 5_000) / 10_000
	s := "$" + num(cents/100) + "." + fmt.Sprintf("%02d", cents%100)
	if neg {
		return "−" + s
	}
	return s
}

// num writes an integer with thousands separators.
func num(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	if neg {
		return "−" + b.String()
	}
	return b.String()
}

// pct writes a share (0..1) as a percentage, or – when there is none.
func pct(f float64) string {
	if f < 0 {
		return "–"
	}
	return strconv.FormatFloat(f*100, 'f', 1, 64) + "%"
}

// rate writes a pacing rate, or – for a campaign not paced.
func rate(f float64) string {
	if f < 0 {
		return "–"
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}

func when(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}
