package console

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
	"sync"
)

// The console's pages share one head and one row of tabs
// (pages/layout.html): each page names its title, tab, style sheets and
// scripts here, and is made once from the templates. Every script is a
// file of /static/ (the Content-Security-Policy allows no inline script).

//go:embed pages
var pageFS embed.FS

// pageHead is what a page's head and tabs say.
type pageHead struct {
	Title   string
	Tab     string   // the tab shown as current ("" on a session's page)
	Styles  []string // style sheets in /static/ before style.css
	Scripts []string // scripts in /static/ after csrf.js, deferred
}

var pageHeads = map[string]pageHead{
	"console.html":   {Title: "ttymux console", Tab: "sessions", Scripts: []string{"nav.js", "console.js"}},
	"approvals.html": {Title: "ttymux approvals", Tab: "approvals", Scripts: []string{"nav.js", "approvals.js"}},
	"audit.html":     {Title: "ttymux audit log", Tab: "audit", Scripts: []string{"nav.js", "audit.js"}},
	"terminal.html":  {Title: "ttymux session", Styles: []string{"xterm.css"}, Scripts: []string{"xterm.js", "addon-fit.js", "terminal.js"}},
}

// pagesHTML is every page, made from the templates.
var pagesHTML = sync.OnceValue(func() map[string][]byte {
	t := template.Must(template.ParseFS(pageFS, "pages/*.html"))
	out := map[string][]byte{}
	for name, h := range pageHeads {
		var b bytes.Buffer
		if err := t.ExecuteTemplate(&b, name, h); err != nil {
			panic(err) // the templates are embedded at build time
		}
		out[name] = b.Bytes()
	}
	return out
})

func (s *Server) page(name string) http.HandlerFunc {
	b, ok := pagesHTML()[name]
	if !ok {
		panic("console: no page " + name)
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b)
	}
}
