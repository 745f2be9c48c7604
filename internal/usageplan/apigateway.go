package usageplan

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
)

// apiGatewayAPI is what APIGateway calls; *apigateway.Client implements it.
type apiGatewayAPI interface {
	CreateApiKey(ctx context.Context, in *apigateway.CreateApiKeyInput, optFns ...func(*apigateway.Options)) (*apigateway.CreateApiKeyOutput, error)
	DeleteApiKey(ctx context.Context, in *apigateway.DeleteApiKeyInput, optFns ...func(*apigateway.Options)) (*apigateway.DeleteApiKeyOutput, error)
	GetApiKeys(ctx context.Context, in *apigateway.GetApiKeysInput, optFns ...func(*apigateway.Options)) (*apigateway.GetApiKeysOutput, error)
	CreateUsagePlanKey(ctx context.Context, in *apigateway.CreateUsagePlanKeyInput, optFns ...func(*apigateway.Options)) (*apigateway.CreateUsagePlanKeyOutput, error)
	DeleteUsagePlanKey(ctx context.Context, in *apigateway.DeleteUsagePlanKeyInput, optFns ...func(*apigateway.Options)) (*apigateway.DeleteUsagePlanKeyOutput, error)
}

var _ apiGatewayAPI = (*apigateway.Client)(nil)

// APIGateway provisions API keys and usage plan keys with the API Gateway REST API.
//
// An account's key is named "<account id>-<6 random characters>" (a new name on every
// rotation), so the keys of an account are found with a name prefix query; the key's value is
// 40 random base62 characters.
type APIGateway struct {
	client apiGatewayAPI
	plans  Plans
}

var _ Provisioner = (*APIGateway)(nil)

// NewAPIGateway returns a Provisioner over client with the usage plans plans.
func NewAPIGateway(client *apigateway.Client, plans Plans) *APIGateway {
	return &APIGateway{client: client, plans: plans}
}

// usagePlanKeyType is the only key type API Gateway usage plans take.
const usagePlanKeyType = "API_KEY"

// Provision creates the key and attaches it to the tier's plan. When the attachment fails the
// key is deleted again, so a failed Provision leaves nothing behind (unless that delete fails
// too, which the error says).
func (g *APIGateway) Provision(ctx context.Context, accountID, tier string) (string, error) {
	plan, err := g.plans.plan(tier)
	if err != nil {
		return "", err
	}
	value, err := randomBase62(ValueLen)
	if err != nil {
		return "", err
	}
	suffix, err := randomBase62(6)
	if err != nil {
		return "", err
	}
	out, err := g.client.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{
		Name:        aws.String(accountID + "-" + suffix),
		Description: aws.String("Sluice account " + accountID + " (usage identifier; not a Sluice API key)"),
		Enabled:     true,
		Value:       aws.String(value),
	})
	if err != nil {
		return "", fmt.Errorf("usageplan: create API key for %s: %w", accountID, err)
	}
	if out.Id == nil || *out.Id == "" {
		return "", fmt.Errorf("usageplan: create API key for %s: no key id in the answer", accountID)
	}
	if err := g.attach(ctx, plan, *out.Id); err != nil {
		err = fmt.Errorf("usageplan: attach the API key of %s to usage plan %s (tier %s): %w", accountID, plan, tier, err)
		if _, derr := g.client.DeleteApiKey(ctx, &apigateway.DeleteApiKeyInput{ApiKey: out.Id}); derr != nil {
			return "", fmt.Errorf("%w; deleting API key %s failed too: %w", err, *out.Id, derr)
		}
		return "", err
	}
	return value, nil
}

func (g *APIGateway) attach(ctx context.Context, plan, keyID string) error {
	_, err := g.client.CreateUsagePlanKey(ctx, &apigateway.CreateUsagePlanKeyInput{
		UsagePlanId: aws.String(plan),
		KeyId:       aws.String(keyID),
		KeyType:     aws.String(usagePlanKeyType),
	})
	return err
}

// Move detaches the key from the old plan, then attaches it to the new one (API Gateway does not
// let one key sit in two plans of the same stage). When the attachment fails it puts the key back
// in the old plan.
func (g *APIGateway) Move(ctx context.Context, accountID, value, from, to string) error {
	if from == to {
		return nil
	}
	oldPlan, err := g.plans.plan(from)
	if err != nil {
		return err
	}
	newPlan, err := g.plans.plan(to)
	if err != nil {
		return err
	}
	id, err := g.find(ctx, accountID, value)
	if err != nil {
		return err
	}
	if id == "" {
		return fmt.Errorf("usageplan: move %s: no API key with the account's value", accountID)
	}
	_, err = g.client.DeleteUsagePlanKey(ctx, &apigateway.DeleteUsagePlanKeyInput{UsagePlanId: aws.String(oldPlan), KeyId: aws.String(id)})
	if err != nil && !notFound(err) {
		return fmt.Errorf("usageplan: move %s: detach from usage plan %s: %w", accountID, oldPlan, err)
	}
	if err := g.attach(ctx, newPlan, id); err != nil {
		err = fmt.Errorf("usageplan: move %s: attach to usage plan %s: %w", accountID, newPlan, err)
		if rerr := g.attach(ctx, oldPlan, id); rerr != nil {
			return fmt.Errorf("%w; putting it back in usage plan %s failed too: %w", err, oldPlan, rerr)
		}
		return err
	}
	return nil
}

// Retire deletes the account's key with value.
func (g *APIGateway) Retire(ctx context.Context, accountID, value string) error {
	id, err := g.find(ctx, accountID, value)
	if err != nil || id == "" {
		return err
	}
	if _, err := g.client.DeleteApiKey(ctx, &apigateway.DeleteApiKeyInput{ApiKey: aws.String(id)}); err != nil && !notFound(err) {
		return fmt.Errorf("usageplan: delete API key %s of %s: %w", id, accountID, err)
	}
	return nil
}

// find returns the id of the account's key whose value is value, or "" when there is none. The
// name query is a prefix match, so it finds every key provisioned for the account.
func (g *APIGateway) find(ctx context.Context, accountID, value string) (string, error) {
	in := &apigateway.GetApiKeysInput{NameQuery: aws.String(accountID + "-"), IncludeValues: aws.Bool(true), Limit: aws.Int32(500)}
	for {
		out, err := g.client.GetApiKeys(ctx, in)
		if err != nil {
			return "", fmt.Errorf("usageplan: find the API key of %s: %w", accountID, err)
		}
		for _, k := range out.Items {
			if aws.ToString(k.Value) == value && aws.ToString(k.Id) != "" {
				return *k.Id, nil
			}
		}
		if aws.ToString(out.Position) == "" {
			return "", nil
		}
		in.Position = out.Position
	}
}

func notFound(err error) bool {
	var nf *types.NotFoundException
	return errors.As(err, &nf)
}
