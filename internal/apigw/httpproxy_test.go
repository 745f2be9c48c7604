package apigw

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// seen is what the handler under the adapter received.
type seen struct {
	method, path, query, host, remote, body, prefix, cookie string
	origin                                                  []string
	deadline                                                bool
}

func echoHandler(got *seen) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c, _ := r.Cookie("__Host-sluice_session")
		if c != nil {
			got.cookie = c.Value
		}
		_, got.deadline = r.Context().Deadline()
		got.method, got.path, got.query, got.host, got.remote, got.body = r.Method, r.URL.Path, r.URL.RawQuery, r.Host, r.RemoteAddr, string(b)
		got.origin = r.Header.Values("Origin")
		http.SetCookie(w, &http.Cookie{Name: "a", Value: "1"})
		http.SetCookie(w, &http.Cookie{Name: "b", Value: "2"})
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusSeeOther)
		_, _ = io.WriteString(w, "<p>café</p>")
	})
}

func TestHTTPHandler(t *testing.T) {
	var ev events.APIGatewayProxyRequest
	fixture(t, "dashboard-post.json", &ev)
	for _, tc := range []struct {
		name   string
		mutate func(*events.APIGatewayProxyRequest)
	}{
		{"Text", func(*events.APIGatewayProxyRequest) {}},
		{"Base64Body", func(e *events.APIGatewayProxyRequest) {
			e.Body, e.IsBase64Encoded = base64.StdEncoding.EncodeToString([]byte(e.Body)), true
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := ev
			tc.mutate(&e)
			var got seen
			h := NewHTTPHandler(echoHandler(&got), func(r *http.Request, prefix string) *http.Request {
				got.prefix = prefix
				return r
			})
			ctx, cancel := contextWithDeadline(t)
			defer cancel()
			resp, err := h.Handle(ctx, e)
			if err != nil {
				t.Fatal(err)
			}
			want := seen{
				method: "POST", path: "/dashboard/keys", query: "a=1&a=2&b=x+y",
				host: "abcdef1234.execute-api.eu-west-1.amazonaws.com", remote: "203.0.113.7",
				body: "csrf=CSRF&text=caf%C3%A9", prefix: "/prod", cookie: "SESSION",
				origin: []string{"https://abcdef1234.execute-api.eu-west-1.amazonaws.com"}, deadline: true,
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("handler saw %+v\nwant %+v", got, want)
			}
			if resp.StatusCode != http.StatusSeeOther || resp.Body != "<p>café</p>" || resp.IsBase64Encoded {
				t.Errorf("response %d %q base64=%v", resp.StatusCode, resp.Body, resp.IsBase64Encoded)
			}
			if c := resp.MultiValueHeaders["Set-Cookie"]; len(c) != 2 || c[0] != "a=1" || c[1] != "b=2" {
				t.Errorf("Set-Cookie = %v, want both cookies", c)
			}
			if len(resp.Headers) != 0 {
				t.Errorf("single-value headers %v: every value goes in MultiValueHeaders", resp.Headers)
			}
		})
	}
}

func TestHTTPHandlerEdges(t *testing.T) {
	t.Run("BadBase64", func(t *testing.T) {
		h := NewHTTPHandler(http.NotFoundHandler(), nil)
		resp, _ := h.Handle(t.Context(), events.APIGatewayProxyRequest{HTTPMethod: "POST", Path: "/dashboard/x", Body: "%%%", IsBase64Encoded: true})
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("status %d, want 400", resp.StatusCode)
		}
	})
	t.Run("BinaryBody", func(t *testing.T) {
		h := NewHTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte{0xff, 0x00}) }), nil)
		resp, _ := h.Handle(t.Context(), events.APIGatewayProxyRequest{HTTPMethod: "GET", Path: "/x"})
		if !resp.IsBase64Encoded || resp.Body != "/wA=" || resp.StatusCode != 200 {
			t.Errorf("response %+v", resp)
		}
	})
	for _, tc := range []struct {
		name, full, path, want string
	}{
		{"Stage", "/prod/dashboard/keys", "/dashboard/keys", "/prod"},
		{"CustomDomainRoot", "/dashboard/keys", "/dashboard/keys", ""},
		{"Mismatch", "/other", "/dashboard/keys", ""},
		{"NoContext", "", "/dashboard", ""},
	} {
		t.Run("StagePrefix"+tc.name, func(t *testing.T) {
			ev := events.APIGatewayProxyRequest{Path: tc.path}
			ev.RequestContext.Path = tc.full
			if got := StagePrefix(ev); got != tc.want {
				t.Errorf("StagePrefix = %q, want %q", got, tc.want)
			}
		})
	}
}

func contextWithDeadline(t *testing.T) (context.Context, context.CancelFunc) {
	return context.WithTimeout(t.Context(), time.Minute)
}
