package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// LocalRegion is the region of the SDK configuration AWSConfig builds for a local endpoint.
const LocalRegion = "us-east-1"

// AWSConfig loads the SDK configuration of the processes that run outside Lambda (the local
// server and keyctl). Without an endpoint it is the SDK's default chain (environment, shared
// files, instance role). With one, the store is a DynamoDB-compatible server on this machine
// (dynalite), which takes any credentials: region LocalRegion and static dummy credentials, so
// nothing is looked up on the network.
func AWSConfig(ctx context.Context, endpoint string) (aws.Config, error) {
	var opts []func(*config.LoadOptions) error
	if endpoint != "" {
		opts = append(opts, config.WithRegion(LocalRegion),
			config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("dynamo: aws config: %w", err)
	}
	return cfg, nil
}

// ClientFromConfig returns a DynamoDB client on cfg that talks to endpoint when it is not empty.
func ClientFromConfig(cfg aws.Config, endpoint string) *dynamodb.Client {
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	})
}

// NewClient returns the DynamoDB client of a process outside Lambda: AWSConfig, then
// ClientFromConfig.
func NewClient(ctx context.Context, endpoint string) (*dynamodb.Client, error) {
	cfg, err := AWSConfig(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	return ClientFromConfig(cfg, endpoint), nil
}
