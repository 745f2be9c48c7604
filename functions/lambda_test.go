// Package functions_test builds the four Lambda functions for this machine and drives each one
// through the Lambda Runtime API with the fixtures in events/, against dynalite (DynamoDB) and a
// Secrets Manager stand-in, exactly as Lambda would run them.
package functions_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/secrets"
	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/dynamo"
	"github.com/sluice-api/sluice/internal/store/dynamo/layout"
	"github.com/sluice-api/sluice/internal/testutil/dynalite"
	"github.com/sluice-api/sluice/internal/testutil/lambdart"
)

const (
	fixtureKey     = "sluice_live_FixtureKey0FixtureKey0FixtureKey"
	fixtureAccount = "acct_FIXTURE"
	region         = "eu-west-1"
	secretID       = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:sluice-test"
	tablePrefix    = "fn_"
	// The copy key (its secret, as the stack generates it), which only the authorizer gets.
	copyKeySecretID = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:sluice-test-copy-key"
	copyKey         = "CopyKey0123CopyKey0123CopyKey0123CopyKey0123"
	// disabledKey is the key of a disabled account whose key item a dashboard forged to copy
	// the account as enabled.
	disabledKey = "sluice_live_DisabledKey0DisabledKey0Disabled"
)

// env is everything the functions need: dynalite with seeded tables and a secret server.
type env struct {
	dynamoURL, secretsURL string
	bin                   string
	pepper                []byte
}

func setup(t testing.TB) *env {
	t.Helper()
	e := &env{bin: t.TempDir()}
	e.dynamoURL = dynalite.StartT(t)

	doc, err := secrets.Generate()
	if err != nil {
		t.Fatal(err)
	}
	sec, err := secrets.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	e.pepper = sec.Pepper
	sm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ SecretId string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		if r.Header.Get("X-Amz-Target") == "secretsmanager.GetSecretValue" && req.SecretId == copyKeySecretID {
			_ = json.NewEncoder(w).Encode(map[string]string{"ARN": copyKeySecretID, "Name": "sluice-test-copy-key", "SecretString": copyKey, "VersionId": "v1"})
			return
		}
		if r.Header.Get("X-Amz-Target") != "secretsmanager.GetSecretValue" || req.SecretId != secretID {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"__type":"ResourceNotFoundException","message":"no such secret"}`)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"ARN": secretID, "Name": "sluice-test", "SecretString": string(doc), "VersionId": "v1"})
	}))
	t.Cleanup(sm.Close)
	e.secretsURL = sm.URL

	client, err := dynalite.Client(t.Context(), e.dynamoURL)
	if err != nil {
		t.Fatal(err)
	}
	// The accounts are written as keyctl writes them: sealed with the copy key.
	st := dynamo.New(client, dynamo.TablesWithPrefix(tablePrefix), dynamo.WithCopyKey([]byte(copyKey)))
	if err := st.CreateTables(t.Context()); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	err = st.CreateAccount(t.Context(),
		store.Account{ID: fixtureAccount, Region: region, Tier: account.TierStandard, RateLimit: 600, Allowance: 10_000_000, UsagePlanKey: "apikey-fixture", CreatedAt: now},
		store.Key{ID: "key_FIXTURE", Account: fixtureAccount, Hash: account.HashKey(sec.Pepper, fixtureKey), Prefix: fixtureKey[:16], Last4: fixtureKey[len(fixtureKey)-4:], CreatedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	// A disabled account whose key item a compromised dashboard rewrote (its role may put key
	// items whole) to copy the account as enabled, keeping the seal it found.
	offHash := account.HashKey(sec.Pepper, disabledKey)
	err = st.CreateAccount(t.Context(),
		store.Account{ID: "acct_DISABLED", Region: region, Tier: account.TierStandard, RateLimit: 600, Allowance: 10_000_000, Disabled: true, CreatedAt: now},
		store.Key{ID: "key_DISABLED", Account: "acct_DISABLED", Hash: offHash, Prefix: disabledKey[:16], Last4: disabledKey[len(disabledKey)-4:], CreatedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	pk := map[string]types.AttributeValue{layout.PK: &types.AttributeValueMemberS{Value: layout.PrefixKey + offHash}}
	item, err := client.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String(tablePrefix + "accounts"), Key: pk, ConsistentRead: aws.Bool(true)})
	if err != nil || item.Item == nil {
		t.Fatalf("read the disabled account's key item: %v", err)
	}
	item.Item[layout.CopyDisabled] = &types.AttributeValueMemberBOOL{Value: false}
	if _, err := client.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(tablePrefix + "accounts"), Item: item.Item}); err != nil {
		t.Fatal(err)
	}
	return e
}

// build compiles the functions once per test binary run.
var buildOnce sync.Once
var buildDir string
var buildErr error

func build(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "sluice-fn-")
		if buildErr != nil {
			return
		}
		for _, fn := range []string{"run", "services", "authorizer", "dashboard"} {
			cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-trimpath", "-o", filepath.Join(buildDir, fn, "bootstrap"), "./"+fn)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				buildErr = err
				t.Logf("build %s: %s", fn, out.String())
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatalf("build functions: %v", buildErr)
	}
	return buildDir
}

// function is one running function process.
type function struct {
	rt     *lambdart.Server
	stdout *lockedBuffer
	pid    int
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (e *env) start(t testing.TB, name string) *function {
	t.Helper()
	rt, err := lambdart.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	f := &function{rt: rt, stdout: &lockedBuffer{}}
	cmd := exec.Command(filepath.Join(build(t), name, "bootstrap"))
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"AWS_LAMBDA_RUNTIME_API=" + rt.Addr(),
		"AWS_LAMBDA_FUNCTION_NAME=sluice-" + name,
		"AWS_REGION=" + region,
		"AWS_ACCESS_KEY_ID=test",
		"AWS_SECRET_ACCESS_KEY=test",
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_ENDPOINT_URL_DYNAMODB=" + e.dynamoURL,
		"AWS_ENDPOINT_URL_SECRETS_MANAGER=" + e.secretsURL,
		"SLUICE_TABLE_PREFIX=" + tablePrefix,
		"SLUICE_SECRET_ID=" + secretID,
	}
	if name == "authorizer" { // as the stack sets it: the authorizer's alone
		cmd.Env = append(cmd.Env, "SLUICE_COPY_KEY_SECRET_ID="+copyKeySecretID)
	}
	cmd.Stdout, cmd.Stderr = f.stdout, f.stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f.pid = cmd.Process.Pid
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return f
}

func (f *function) invoke(t testing.TB, payload []byte, deadline time.Duration) lambdart.Result {
	t.Helper()
	res, err := f.rt.Invoke(payload, deadline, 60*time.Second)
	if err != nil {
		t.Fatalf("%v\nfunction output:\n%s", err, f.stdout.String())
	}
	return res
}

func readEvent(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "events", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func proxyResponse(t testing.TB, res lambdart.Result) (events.APIGatewayProxyResponse, map[string]any) {
	t.Helper()
	if res.Error != nil {
		t.Fatalf("function error: %+v", res.Error)
	}
	var resp events.APIGatewayProxyResponse
	if err := json.Unmarshal(res.Body, &resp); err != nil {
		t.Fatalf("response is not a proxy response: %s", res.Body)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(resp.Body), &body); err != nil {
		t.Fatalf("body is not JSON: %q", resp.Body)
	}
	return resp, body
}

func TestFunctionsThroughRuntimeAPI(t *testing.T) {
	e := setup(t)

	t.Run("Authorizer", func(t *testing.T) {
		f := e.start(t, "authorizer")
		var allow events.APIGatewayCustomAuthorizerResponse
		res := f.invoke(t, readEvent(t, "authorizer-allow.json"), 10*time.Second)
		if res.Error != nil || json.Unmarshal(res.Body, &allow) != nil {
			t.Fatalf("allow: %+v %s", res.Error, res.Body)
		}
		st := allow.PolicyDocument.Statement
		if allow.PrincipalID != fixtureAccount || len(st) != 1 || st[0].Effect != "Allow" ||
			st[0].Resource[0] != "arn:aws:execute-api:eu-west-1:123456789012:abcdef1234/v1/*/*" ||
			allow.UsageIdentifierKey != "apikey-fixture" || allow.Context["account_id"] != fixtureAccount {
			t.Fatalf("allow = %+v", allow)
		}
		deny := f.invoke(t, readEvent(t, "authorizer-deny.json"), 10*time.Second)
		if deny.Error == nil || deny.Error.Message != "Unauthorized" {
			t.Fatalf("deny = %+v %s", deny.Error, deny.Body)
		}
		// The forged copy says enabled; its seal is the disabled account's: still Unauthorized.
		forged := f.invoke(t, bytes.ReplaceAll(readEvent(t, "authorizer-allow.json"), []byte(fixtureKey), []byte(disabledKey)), 10*time.Second)
		if forged.Error == nil || forged.Error.Message != "Unauthorized" {
			t.Fatalf("a key item forged to enable its account = %+v %s", forged.Error, forged.Body)
		}
		if strings.Contains(f.stdout.String(), "sluice_live_") {
			t.Fatalf("a key reached the function's output:\n%s", f.stdout.String())
		}
	})

	t.Run("Services", func(t *testing.T) {
		f := e.start(t, "services")
		resp, body := proxyResponse(t, f.invoke(t, readEvent(t, "service.json"), 10*time.Second))
		if resp.StatusCode != 200 || body["name"] != "governance.pii.tokenize" || resp.Headers["X-RateLimit-Limit"] != "600" {
			t.Fatalf("descriptor = %d %v %v", resp.StatusCode, resp.Headers, body)
		}
		resp, body = proxyResponse(t, f.invoke(t, readEvent(t, "services.json"), 10*time.Second))
		if list, _ := body["services"].([]any); resp.StatusCode != 200 || len(list) != 6 {
			t.Fatalf("services = %d %v", resp.StatusCode, body)
		}
		resp, body = proxyResponse(t, f.invoke(t, readEvent(t, "openapi.json"), 10*time.Second))
		if resp.StatusCode != 200 || body["openapi"] != "3.1.0" {
			t.Fatalf("openapi = %d %.200v", resp.StatusCode, body)
		}
		resp, body = proxyResponse(t, f.invoke(t, readEvent(t, "usage.json"), 10*time.Second))
		if resp.StatusCode != 200 || body["account_id"] != fixtureAccount || body["allowance"] != 10_000_000.0 || body["month"] != account.Month(time.Now()) {
			t.Fatalf("usage = %d %v", resp.StatusCode, body)
		}
	})

	t.Run("Run", func(t *testing.T) {
		f := e.start(t, "run")
		resp, body := proxyResponse(t, f.invoke(t, readEvent(t, "run.json"), 20*time.Second))
		if resp.StatusCode != 200 || body["status"] != "halted" || body["halted_at"] != "guard" || body["request_id"] != "fixture-1" {
			t.Fatalf("run = %d %s", resp.StatusCode, resp.Body)
		}
		if _, ran := body["results"].(map[string]any)["lang"]; ran {
			t.Fatalf("a step after the halt ran: %s", resp.Body)
		}
		for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
			if resp.Headers[h] == "" {
				t.Fatalf("missing %s in %v", h, resp.Headers)
			}
		}
		// The same fixture again: its Idempotency-Key makes it a duplicate.
		resp2, body2 := proxyResponse(t, f.invoke(t, readEvent(t, "run.json"), 20*time.Second))
		if body2["status"] != "duplicate" || body2["trace_id"] != body["trace_id"] || resp2.Headers["Idempotent-Replayed"] != "true" {
			t.Fatalf("repeat = %d %s", resp2.StatusCode, resp2.Body)
		}

		resp, body = proxyResponse(t, f.invoke(t, readEvent(t, "run-rejected.json"), 20*time.Second))
		errObj, _ := body["error"].(map[string]any)
		if resp.StatusCode != 400 || errObj["code"] != "duplicate_step_id" || body["status"] != "failed" {
			t.Fatalf("rejected = %d %s", resp.StatusCode, resp.Body)
		}

		// A deadline too short for any step: step_timeout, nothing billed, and the key is
		// released, so the retry with a normal deadline runs.
		var ev events.APIGatewayProxyRequest
		if err := json.Unmarshal(readEvent(t, "run.json"), &ev); err != nil {
			t.Fatal(err)
		}
		ev.Headers["Idempotency-Key"] = "deadline-1"
		ev.MultiValueHeaders["Idempotency-Key"] = []string{"deadline-1"}
		short, _ := json.Marshal(ev)
		resp, body = proxyResponse(t, f.invoke(t, short, 400*time.Millisecond))
		errObj, _ = body["error"].(map[string]any)
		if resp.StatusCode != 200 || body["status"] != "failed" || errObj["code"] != "step_timeout" ||
			len(body["usage"].(map[string]any)["billed"].([]any)) != 0 {
			t.Fatalf("short deadline = %d %s", resp.StatusCode, resp.Body)
		}
		_, body = proxyResponse(t, f.invoke(t, short, 20*time.Second))
		if body["status"] != "halted" {
			t.Fatalf("retry after timeout = %v", body)
		}

		out := f.stdout.String()
		if !strings.Contains(out, `"_aws"`) || !strings.Contains(out, `"BilledCharacters"`) {
			t.Fatalf("no EMF metrics in the function's output:\n%s", out)
		}
		for _, leak := range []string{"jane.doe", "Ignore previous", "example.com"} {
			if strings.Contains(out, leak) {
				t.Fatalf("request text %q reached logs or metrics:\n%s", leak, out)
			}
		}
	})
}
