package console

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/recbid/dspd/api/tokens"
)

// cookieName is the session cookie's name.
const cookieName = "dspd_console"

// maxSessions bounds the sessions held: signing in past it drops the
// oldest.
const maxSessions = 10_000

// session is one signed-in browser.
type session struct {
	id      string
	token   string // the token signed in with: checked against the file on every request
	who     tokens.Token
	csrf    string
	expires time.Time // absolute
	idle    time.Time // unused past it, it ends
}

type sessions struct {
	mu       sync.Mutex
	byID     map[string]*session
	clock    func() time.Time
	ttl, idl time.Duration
}

func newSessions(clock func() time.Time, ttl, idle time.Duration) *sessions {
	return &sessions{byID: map[string]*session{}, clock: clock, ttl: ttl, idl: idle}
}

func randomID() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// start makes a session for a token's holder.
func (s *sessions) start(token string, who tokens.Token) *session {
	now := s.clock()
	ss := &session{id: randomID(), token: token, who: who, csrf: randomID(), expires: now.Add(s.ttl), idle: now.Add(s.idl)}
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, o := range s.byID {
		if now.After(o.expires) || now.After(o.idle) {
			delete(s.byID, id)
		}
	}
	if len(s.byID) >= maxSessions {
		var oldest *session
		for _, o := range s.byID {
			if oldest == nil || o.expires.Before(oldest.expires) {
				oldest = o
			}
		}
		delete(s.byID, oldest.id)
	}
	s.byID[ss.id] = ss
	return ss
}

// find returns a live session and makes it last another idle period.
func (s *sessions) find(id string) (*session, bool) {
	now := s.clock()
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.byID[id]
	if !ok {
		return nil, false
	}
	if now.After(ss.expires) || now.After(ss.idle) {
		delete(s.byID, id)
		return nil, false
	}
	ss.idle = now.Add(s.idl)
	return ss, true
}

func (s *sessions) end(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byID, id)
}

type sessionKey struct{}

func sessionOf(r *http.Request) *session {
	ss, _ := r.Context().Value(sessionKey{}).(*session)
	return ss
}

// requireSession lets through a request with a live session whose token
// is still in the tokens file (a token taken out of it ends its sessions
// at the file's reload); others are sent to the sign-in page.
func (c *console) requireSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ck, err := r.Cookie(cookieName)
		var ss *session
		ok := false
		if err == nil {
			ss, ok = c.sessions.find(ck.Value)
		}
		if ok {
			who, still := c.cfg.Tokens.Find(ss.token)
			if !still {
				c.sessions.end(ss.id)
				ok = false
			} else {
				ss.who = who // a role changed in the file takes effect at once
			}
		}
		if !ok {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, Prefix+"/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			http.Error(w, "sign in first", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, ss)))
	})
}

// requireCSRF lets a form through only with its session's CSRF token.
func (c *console) requireCSRF(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ss := sessionOf(r)
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		if err := r.ParseForm(); err != nil {
			http.Error(w, "the form could not be read", http.StatusBadRequest)
			return
		}
		if subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(ss.csrf)) != 1 {
			http.Error(w, "the form is stale or was not sent by the console: reload the page", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// maxFormBytes bounds a form: a campaign document and some.
const maxFormBytes = 2 << 20

// requireWrite lets through a session whose token may write.
func (c *console) requireWrite(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !sessionOf(r).who.Role.Allows(tokens.Write) {
			http.Error(w, "your token may read, not change", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// fromHere reports whether a request's Origin (or Referer) is this host.
func fromHere(r *http.Request) bool {
	src := r.Header.Get("Origin")
	if src == "" {
		src = r.Header.Get("Referer")
	}
	if src == "" {
		return false
	}
	u, err := url.Parse(src)
	return err == nil && u.Host == r.Host && (u.Scheme == "http" || u.Scheme == "https")
}

// localPath returns p when it is a path of the console, else the console's
// home: a sign-in or a form never sends the browser elsewhere.
func localPath(p string) string {
	if strings.HasPrefix(p, Prefix+"/") && !strings.HasPrefix(p, "//") && !strings.ContainsAny(p, "\\\r\n") {
		return p
	}
	return Prefix + "/"
}

func (c *console) setCookie(w http.ResponseWriter, r *http.Request, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: value, Path: Prefix + "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
}

// loginPage serves the sign-in form.
func (c *console) loginPage(w http.ResponseWriter, r *http.Request) {
	c.render(w, r, http.StatusOK, "login", pageData{Title: "Sign in", Next: localPath(r.URL.Query().Get("next"))})
}

// login checks a token and starts a session.
func (c *console) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "the form could not be read", http.StatusBadRequest)
		return
	}
	token := strings.TrimSpace(r.PostForm.Get("token"))
	next := localPath(r.PostForm.Get("next"))
	who, ok := c.cfg.Tokens.Find(token)
	if !ok {
		c.render(w, r, http.StatusUnauthorized, "login", pageData{Title: "Sign in", Next: next,
			Error: "That token is not one of this dspd's (-api-tokens)."})
		return
	}
	ss := c.sessions.start(token, who)
	c.setCookie(w, r, ss.id, int(c.cfg.SessionTTL/time.Second))
	c.log.Info("console: signed in", "who", who.Name, "role", who.Role)
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// logout ends the session.
func (c *console) logout(w http.ResponseWriter, r *http.Request) {
	c.sessions.end(sessionOf(r).id)
	c.setCookie(w, r, "", -1)
	http.Redirect(w, r, Prefix+"/login", http.StatusSeeOther)
}
