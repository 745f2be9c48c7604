package functions_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/dashboard"
	"github.com/sluice-api/sluice/internal/store/dynamo"
	"github.com/sluice-api/sluice/internal/testutil/dynalite"
)

// TestDashboardThroughRuntimeAPI signs in to the dashboard function and creates a key, every
// request an API Gateway proxy event through the Lambda Runtime API, as behind the REST API's
// prod stage.
func TestDashboardThroughRuntimeAPI(t *testing.T) {
	e := setup(t)
	client, err := dynalite.Client(t.Context(), e.dynamoURL)
	if err != nil {
		t.Fatal(err)
	}
	st := dynamo.New(client, dynamo.TablesWithPrefix(tablePrefix))
	const host = "abcdef1234.execute-api.eu-west-1.amazonaws.com"
	link, err := dashboard.NewLink(t.Context(), st, e.pepper, fixtureAccount, "https://"+host+"/prod", 0, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	f := e.start(t, "dashboard")
	cookies := map[string]string{}
	call := func(method, path, query string, form url.Values) events.APIGatewayProxyResponse {
		t.Helper()
		var ev events.APIGatewayProxyRequest
		if err := json.Unmarshal(readEvent(t, "dashboard-post.json"), &ev); err != nil {
			t.Fatal(err)
		}
		ev.HTTPMethod, ev.Path, ev.RequestContext.Path = method, path, "/prod"+path
		ev.Body = form.Encode()
		q, _ := url.ParseQuery(query)
		ev.QueryStringParameters, ev.MultiValueQueryStringParameters = nil, q
		var jar []string
		for k, v := range cookies {
			jar = append(jar, k+"="+v)
		}
		ev.Headers, ev.MultiValueHeaders = map[string]string{}, map[string][]string{
			"Host": {host}, "Cookie": {strings.Join(jar, "; ")}, "Sec-Fetch-Site": {"same-origin"},
			"Content-Type": {"application/x-www-form-urlencoded"},
		}
		payload, _ := json.Marshal(ev)
		res := f.invoke(t, payload, 20*time.Second)
		if res.Error != nil {
			t.Fatalf("function error: %+v", res.Error)
		}
		var resp events.APIGatewayProxyResponse
		if err := json.Unmarshal(res.Body, &resp); err != nil {
			t.Fatalf("not a proxy response: %s", res.Body)
		}
		for _, c := range (&http.Response{Header: resp.MultiValueHeaders}).Cookies() {
			if c.MaxAge < 0 {
				delete(cookies, c.Name)
				continue
			}
			if !c.Secure || !c.HttpOnly || !strings.HasPrefix(c.Name, "__Host-") {
				t.Fatalf("cookie %+v: want __Host-, Secure, HttpOnly behind API Gateway", c)
			}
			cookies[c.Name] = c.Value
		}
		for _, h := range []string{"Content-Security-Policy", "X-Frame-Options", "Referrer-Policy", "Strict-Transport-Security"} {
			if len(resp.MultiValueHeaders[h]) == 0 {
				t.Fatalf("%s %s: no %s header", method, path, h)
			}
		}
		return resp
	}
	field := func(page, name string) string {
		m := regexp.MustCompile(`name="` + name + `" value="([^"]+)"`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("no %s field in:\n%s", name, page)
		}
		return m[1]
	}

	token := strings.TrimPrefix(link.URL, "https://"+host+"/prod/dashboard/sign-in?token=")
	page := call("GET", "/dashboard/sign-in", "token="+token, nil)
	if page.StatusCode != 200 || !strings.Contains(page.Body, `action="/prod/dashboard/sign-in"`) {
		t.Fatalf("sign-in page %d:\n%s", page.StatusCode, page.Body)
	}
	resp := call("POST", "/dashboard/sign-in", "", url.Values{"token": {token}, "csrf": {field(page.Body, "csrf")}})
	if resp.StatusCode != 303 || resp.MultiValueHeaders["Location"][0] != "/prod/dashboard/" || cookies["__Host-sluice_session"] == "" {
		t.Fatalf("sign in: %d %v", resp.StatusCode, resp.MultiValueHeaders)
	}
	over := call("GET", "/dashboard/", "", nil)
	if over.StatusCode != 200 || !strings.Contains(over.Body, fixtureAccount) {
		t.Fatalf("overview %d", over.StatusCode)
	}
	created := call("POST", "/dashboard/keys", "", url.Values{"csrf": {field(over.Body, "csrf")}})
	key := regexp.MustCompile(`sluice_live_[0-9A-Za-z]{32}`).FindString(created.Body)
	if created.StatusCode != 200 || key == "" {
		t.Fatalf("create key %d", created.StatusCode)
	}
	k, err := st.KeyByHash(t.Context(), account.HashKey(e.pepper, key))
	if err != nil || !k.Active() || k.Account != fixtureAccount {
		t.Fatalf("the created key in DynamoDB: %+v, %v", k, err)
	}
	play := call("POST", "/dashboard/playground", "", url.Values{"csrf": {field(over.Body, "csrf")},
		"text": {"Mail jane.doe@example.com please"}, "service1": {"governance.pii.redact"}})
	if !strings.Contains(play.Body, "Result: completed (HTTP 200)") || !strings.Contains(play.Body, "curl -s https://"+host+"/prod/v1/run") {
		t.Fatalf("playground:\n%s", play.Body)
	}
	if out := f.stdout.String(); strings.Contains(out, "jane.doe") || strings.Contains(out, token) || strings.Contains(out, "sluice_live_") {
		t.Fatalf("text, a token or a key reached the function's output:\n%s", out)
	}
	call("POST", "/dashboard/sign-out", "", url.Values{"csrf": {field(over.Body, "csrf")}})
	if _, ok := cookies["__Host-sluice_session"]; ok {
		t.Fatal("sign-out left the session cookie")
	}
}
