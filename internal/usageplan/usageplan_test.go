package usageplan_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/usageplan"
	"github.com/sluice-api/sluice/internal/usageplan/usageplantest"
)

var plans = usageplan.Plans{"free": "plan-free", "standard": "plan-std", "enterprise": "plan-ent"}

// newProvisioner returns a provisioner on a fake API Gateway, with a client built the way
// keyctl builds it: static credentials, the test server as base endpoint.
func newProvisioner(t *testing.T) (*usageplan.APIGateway, *usageplantest.Server) {
	t.Helper()
	gw := usageplantest.Start(t, "plan-free", "plan-std", "plan-ent")
	client := apigateway.NewFromConfig(aws.Config{
		Region:      "eu-west-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
	}, func(o *apigateway.Options) { o.BaseEndpoint = aws.String(gw.URL) })
	return usageplan.NewAPIGateway(client, plans), gw
}

func TestParsePlans(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     usageplan.Plans
		err      string
	}{
		{"AllTiers", "free=a,standard=b,enterprise=c", usageplan.Plans{"free": "a", "standard": "b", "enterprise": "c"}, ""},
		{"SpacesAndOrder", " enterprise = c , free=a,standard=b,", usageplan.Plans{"free": "a", "standard": "b", "enterprise": "c"}, ""},
		{"MissingTier", "free=a,standard=b", nil, "no usage plan for tier enterprise"},
		{"UnknownTier", "free=a,standard=b,enterprise=c,gold=d", nil, `unknown tier "gold"`},
		{"Twice", "free=a,free=b,standard=b,enterprise=c", nil, "given twice"},
		{"NoID", "free=,standard=b,enterprise=c", nil, "want tier=usage-plan-id"},
		{"NoEquals", "free", nil, "want tier=usage-plan-id"},
		{"Empty", "", nil, "no usage plan for tier free, standard, enterprise"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := usageplan.ParsePlans(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tc.want.String() {
				t.Fatalf("plans = %s, want %s", got, tc.want)
			}
		})
	}
}

var sigV4 = regexp.MustCompile(`^AWS4-HMAC-SHA256 Credential=AKIDTEST/\d{8}/eu-west-1/apigateway/aws4_request, SignedHeaders=\S+, Signature=[0-9a-f]{64}$`)

func TestProvision(t *testing.T) {
	for _, tc := range []struct {
		tier, plan string
	}{
		{"free", "plan-free"},
		{"standard", "plan-std"},
		{"enterprise", "plan-ent"},
	} {
		t.Run(tc.tier, func(t *testing.T) {
			p, gw := newProvisioner(t)
			value, err := p.Provision(t.Context(), "acct_1", tc.tier)
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(`^[0-9A-Za-z]{40}$`).MatchString(value) || account.ValidKeyFormat(value) || strings.HasPrefix(value, account.KeyPrefix) {
				t.Fatalf("value %q: want 40 base62 characters, unlike a Sluice key", value)
			}
			reqs := gw.Requests()
			if len(reqs) != 2 {
				t.Fatalf("requests = %+v, want CreateApiKey and CreateUsagePlanKey", reqs)
			}
			create, attach := reqs[0], reqs[1]
			if create.Method != http.MethodPost || create.Path != "/apikeys" {
				t.Fatalf("first request %s %s, want POST /apikeys", create.Method, create.Path)
			}
			name, _ := create.Body["name"].(string)
			if !regexp.MustCompile(`^acct_1-[0-9A-Za-z]{6}$`).MatchString(name) || create.Body["enabled"] != true || create.Body["value"] != value {
				t.Fatalf("CreateApiKey body = %v", create.Body)
			}
			keys := gw.Keys()
			if len(keys) != 1 {
				t.Fatalf("keys = %+v", keys)
			}
			if attach.Method != http.MethodPost || attach.Path != "/usageplans/"+tc.plan+"/keys" ||
				attach.Body["keyId"] != keys[0].ID || attach.Body["keyType"] != "API_KEY" {
				t.Fatalf("second request %s %s %v, want POST /usageplans/%s/keys {keyId: %s, keyType: API_KEY}", attach.Method, attach.Path, attach.Body, tc.plan, keys[0].ID)
			}
			for _, r := range reqs {
				if !sigV4.MatchString(r.Authorization) {
					t.Fatalf("%s %s: Authorization = %q, want a SigV4 signature", r.Method, r.Path, r.Authorization)
				}
			}
			if got := gw.PlanOf(value); len(got) != 1 || got[0] != tc.plan {
				t.Fatalf("key in plans %v, want [%s]", got, tc.plan)
			}
		})
	}
}

func TestProvisionFailures(t *testing.T) {
	t.Run("UnknownTierCallsNothing", func(t *testing.T) {
		p, gw := newProvisioner(t)
		if _, err := p.Provision(t.Context(), "acct_1", "gold"); err == nil || !strings.Contains(err.Error(), `no usage plan for tier "gold"`) {
			t.Fatalf("err = %v", err)
		}
		if n := len(gw.Requests()); n != 0 {
			t.Fatalf("%d requests, want none", n)
		}
	})
	t.Run("CreateFails", func(t *testing.T) {
		p, gw := newProvisioner(t)
		gw.FailNext(http.MethodPost, "/apikeys", http.StatusForbidden)
		if _, err := p.Provision(t.Context(), "acct_1", "free"); err == nil || !strings.Contains(err.Error(), "create API key for acct_1") {
			t.Fatalf("err = %v", err)
		}
		if len(gw.Keys()) != 0 {
			t.Fatalf("keys = %+v, want none", gw.Keys())
		}
	})
	t.Run("AttachFailsDeletesTheKey", func(t *testing.T) {
		p, gw := newProvisioner(t)
		gw.FailNext(http.MethodPost, "/usageplans/", http.StatusBadRequest)
		if _, err := p.Provision(t.Context(), "acct_1", "free"); err == nil || !strings.Contains(err.Error(), "attach the API key of acct_1 to usage plan plan-free") {
			t.Fatalf("err = %v", err)
		}
		if len(gw.Keys()) != 0 {
			t.Fatalf("keys = %+v, want the half-made key deleted", gw.Keys())
		}
		last := gw.Requests()[len(gw.Requests())-1]
		if last.Method != http.MethodDelete || !strings.HasPrefix(last.Path, "/apikeys/") {
			t.Fatalf("last request %s %s, want DELETE /apikeys/{id}", last.Method, last.Path)
		}
	})
}

func TestMove(t *testing.T) {
	for _, tc := range []struct {
		name, from, to string
		fail           bool
		wantPlan       string
		wantErr        string
	}{
		{"FreeToEnterprise", "free", "enterprise", false, "plan-ent", ""},
		{"SameTierCallsNothing", "standard", "standard", false, "plan-std", ""},
		{"AttachFailsPutsItBack", "free", "standard", true, "plan-free", "attach to usage plan plan-std"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, gw := newProvisioner(t)
			value, err := p.Provision(t.Context(), "acct_1", tc.from)
			if err != nil {
				t.Fatal(err)
			}
			// Another account's key with a similar name must not be touched.
			other, err := p.Provision(t.Context(), "acct_10", tc.from)
			if err != nil {
				t.Fatal(err)
			}
			before := len(gw.Requests())
			if tc.fail {
				gw.FailNext(http.MethodPost, "/usageplans/"+plans[tc.to], http.StatusBadRequest)
			}
			err = p.Move(t.Context(), "acct_1", value, tc.from, tc.to)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got := gw.PlanOf(value); len(got) != 1 || got[0] != tc.wantPlan {
				t.Fatalf("key in plans %v, want [%s]", got, tc.wantPlan)
			}
			if got := gw.PlanOf(other); len(got) != 1 || got[0] != plans[tc.from] {
				t.Fatalf("other account's key in plans %v, want [%s]", got, plans[tc.from])
			}
			if tc.from == tc.to && len(gw.Requests()) != before {
				t.Fatalf("a move within one tier made %d requests", len(gw.Requests())-before)
			}
		})
	}
	t.Run("UnknownValue", func(t *testing.T) {
		p, _ := newProvisioner(t)
		if err := p.Move(t.Context(), "acct_1", "nope", "free", "standard"); err == nil || !strings.Contains(err.Error(), "no API key") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestRetire(t *testing.T) {
	p, gw := newProvisioner(t)
	old, err := p.Provision(t.Context(), "acct_1", "standard")
	if err != nil {
		t.Fatal(err)
	}
	current, err := p.Provision(t.Context(), "acct_1", "standard")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, value string
	}{
		{"Existing", old},
		{"AlreadyGone", old},
		{"NeverExisted", "0123456789012345678901234567890123456789"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := p.Retire(t.Context(), "acct_1", tc.value); err != nil {
				t.Fatal(err)
			}
			keys := gw.Keys()
			if len(keys) != 1 || keys[0].Value != current {
				t.Fatalf("keys = %+v, want only the current one", keys)
			}
		})
	}
}
