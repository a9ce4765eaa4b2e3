// Tiller's Temporal server: the stock server of the version docker-compose.yml pins, configured the
// same way (the server's embedded config template, read from the environment), with Tiller's claim
// mapper and authorizer compiled in (authz.go). `npm run cluster` builds and runs it.
//
//	tiller-temporal-server start --service frontend [--service history …]
//	tiller-temporal-server validate-dynamic-config <file> …
//
// Authorization is on unless TILLER_AUTH=off (the explicit insecure shape): with it on,
// TILLER_AUTH_PUBLIC_KEY names the PEM Ed25519 key that signs the cluster's tokens, and
// TILLER_AUTH_INTERNODE_CN the common name of the certificate the server's own services present.
package main

import (
	"fmt"
	"os"
	_ "time/tzdata"

	"go.temporal.io/server/common/authorization"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/log"
	_ "go.temporal.io/server/common/persistence/sql/sqlplugin/postgresql"
	"go.temporal.io/server/temporal"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: %s start --service <name> … | validate-dynamic-config <file> …", os.Args[0])
	}
	switch args[0] {
	case "validate-dynamic-config":
		return validateDynamicConfig(args[1:])
	case "start":
		services, err := serviceFlags(args[1:])
		if err != nil {
			return err
		}
		return start(services)
	}
	return fmt.Errorf("unknown command %q", args[0])
}

func serviceFlags(args []string) ([]string, error) {
	var services []string
	for i := 0; i < len(args); i++ {
		if (args[i] == "--service" || args[i] == "--svc") && i+1 < len(args) {
			services = append(services, args[i+1])
			i++
			continue
		}
		return nil, fmt.Errorf("unexpected argument %q (start takes --service <name>, repeated)", args[i])
	}
	if len(services) == 0 {
		services = temporal.DefaultServices
	}
	return services, nil
}

func validateDynamicConfig(files []string) error {
	problems := 0
	for _, file := range files {
		contents, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		result := dynamicconfig.LoadYamlFile(contents)
		fmt.Println(file)
		for _, e := range result.Errors {
			fmt.Printf("  error: %v\n", e)
		}
		for _, w := range result.Warnings {
			fmt.Printf("  warning: %v\n", w)
		}
		problems += len(result.Errors)
	}
	if problems > 0 {
		return fmt.Errorf("%d total errors", problems)
	}
	return nil
}

func start(services []string) error {
	cfg, err := config.Load(config.WithEmbedded())
	if err != nil {
		return fmt.Errorf("unable to load configuration: %w", err)
	}
	logger := log.NewZapLogger(log.BuildZapLogger(cfg.Log))

	options := []temporal.ServerOption{
		temporal.ForServices(services),
		temporal.WithConfig(cfg),
		temporal.WithLogger(logger),
		temporal.InterruptOn(temporal.InterruptCh()),
	}
	if os.Getenv("TILLER_AUTH") == "off" {
		logger.Warn("TILLER_AUTH=off: no authorization, any client that reaches the frontend may do anything")
	} else {
		policy, err := policyFromEnv()
		if err != nil {
			return fmt.Errorf("authorization: %w (TILLER_AUTH=off runs without it)", err)
		}
		options = append(options,
			temporal.WithAuthorizer(policy),
			temporal.WithClaimMapper(func(*config.Config) authorization.ClaimMapper { return policy }),
		)
	}
	server, err := temporal.NewServer(options...)
	if err != nil {
		return fmt.Errorf("unable to create server: %w", err)
	}
	if err := server.Start(); err != nil {
		return fmt.Errorf("unable to start server: %w", err)
	}
	return nil
}
