package main

// Tiller's authorization: a claim mapper that reads the cluster's own JWTs (Ed25519, signed by the key
// `npm run cluster -- up` makes) and the server's internode certificate, and an authorizer with Tiller's
// roles. Temporal's default authorizer knows reader / writer / worker / admin per namespace; it cannot
// say "may send the decide update, as itself, and nothing else that writes" — hence this one.
//
// Roles (the token's `tiller_role` claim), each limited to the token's namespace (`tiller_namespace`):
//   reader   — the read-only APIs of its namespace (list, count, describe, query, history).
//   approver — reader, plus the `decide` update and signal, only as itself.
//   gateway  — reader, plus start, signal, update (decide for the users it verified), update-with-start,
//              cancel. Never terminate, reset, delete, batch, poll task queues or change the namespace.
//   worker   — every namespace API a worker uses (poll, respond, heartbeat, its own client calls); no batch.
//   admin    — everything, in every namespace, except a batch that sends Tiller's messages (rules.go).
// ListNamespaces and batch operations are the admin's alone. A turn started by any role but the gateway
// gets its startedBy from the token's subject (rules.go); tokens are checked in claims.go.
// The server's own services (the certificate with the internode common name) are system admins.
//
// A decide update or signal, from anyone, must carry the `tillerApprover` header (a JSON string): the
// subject of the caller's token, or — for the gateway — the user the gateway verified. The optional
// `tillerApproverGroups` header (a JSON array of strings) must be a subset of the token's `groups`
// (the gateway's is taken as it is). The workflow records that header as the approver (see
// src/workflows/caller.ts): the name in the decision's body no longer decides who decided.

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/server/common/api"
	"go.temporal.io/server/common/authorization"
)

const (
	issuer         = "tiller-cluster"
	decideName     = "decide"
	approverHeader = "tillerApprover"
	groupsHeader   = "tillerApproverGroups"
	maxTokenChars  = 8192
	maxGroups      = 32
)

var (
	subjectPattern = regexp.MustCompile(`^[A-Za-z0-9._@+-]{1,128}$`)
	roles          = map[string]bool{"reader": true, "approver": true, "gateway": true, "worker": true, "admin": true}
)

// principal is what a verified caller is, kept in Claims.Extensions.
type principal struct {
	role      string // reader | approver | gateway | worker | admin | system
	namespace string
	groups    []string
}

// AuthInfoRequired: a call with neither a certificate nor a token gets no claims (and is refused).
func (p *policy) AuthInfoRequired() bool { return true }

var allow = authorization.Result{Decision: authorization.DecisionAllow}

func deny(reason string) authorization.Result {
	return authorization.Result{Decision: authorization.DecisionDeny, Reason: reason}
}

// Writes each role may make, by API method name (reads are allowed to every role; see Authorize).
var writes = map[string]map[string]bool{
	"approver": {"UpdateWorkflowExecution": true, "SignalWorkflowExecution": true},
	"gateway": {
		"StartWorkflowExecution": true, "SignalWorkflowExecution": true, "SignalWithStartWorkflowExecution": true,
		"UpdateWorkflowExecution": true, "ExecuteMultiOperation": true, "RequestCancelWorkflowExecution": true,
	},
}

func (p *policy) Authorize(_ context.Context, claims *authorization.Claims, target *authorization.CallTarget) (authorization.Result, error) {
	if authorization.IsHealthCheckAPI(target.APIName) {
		return allow, nil
	}
	if claims == nil {
		return deny("no credentials: send a token of this cluster (npm run cluster -- token <role> <subject>)"), nil
	}
	who, ok := claims.Extensions.(*principal)
	if !ok {
		return deny("no Tiller role"), nil
	}
	result := allow
	result.Principal = &commonpb.Principal{Type: claims.AuthType, Name: claims.Subject}
	method := api.MethodName(target.APIName)
	if who.role == "system" {
		// The server's own services (the batcher among them) never decide: a decide from them is refused.
		if reason := p.checkDecide(claims.Subject, who, method, target.Request); reason != "" {
			return deny(reason), nil
		}
		return result, nil
	}
	meta := api.GetMethodMetadata(target.APIName)
	if adminOnly[method] && who.role != "admin" {
		return deny(fmt.Sprintf("%s may not call %s", who.role, method)), nil
	}
	if who.role != "admin" {
		if meta.Scope != api.ScopeNamespace && !(meta.Scope == api.ScopeCluster && meta.Access == api.AccessReadOnly) {
			return deny(fmt.Sprintf("%s may not call %s", who.role, method)), nil
		}
		if meta.Scope == api.ScopeNamespace && target.Namespace != who.namespace {
			return deny(fmt.Sprintf("this token is for namespace %q", who.namespace)), nil
		}
		switch {
		case meta.Access == api.AccessReadOnly:
		case who.role == "worker" && meta.Access == api.AccessWrite:
		case writes[who.role][method]:
		default:
			return deny(fmt.Sprintf("%s may not call %s", who.role, method)), nil
		}
	}
	if reason := p.checkDecide(claims.Subject, who, method, target.Request); reason != "" {
		return deny(reason), nil
	}
	if reason := checkBatch(target.Request); reason != "" {
		return deny(reason), nil
	}
	if reason := stampStarter(claims.Subject, who, target.Request); reason != "" {
		return deny(reason), nil
	}
	return result, nil
}

// checkDecide holds the decide rule on every request that can carry a decision; "" when it passes.
func (p *policy) checkDecide(subject string, who *principal, method string, request any) string {
	type decide struct {
		name   string
		header *commonpb.Header
	}
	var found []decide
	switch r := request.(type) {
	case *workflowservice.SignalWorkflowExecutionRequest:
		found = append(found, decide{r.GetSignalName(), r.GetHeader()})
	case *workflowservice.SignalWithStartWorkflowExecutionRequest:
		found = append(found, decide{r.GetSignalName(), r.GetHeader()})
	case *workflowservice.UpdateWorkflowExecutionRequest:
		input := r.GetRequest().GetInput()
		found = append(found, decide{input.GetName(), input.GetHeader()})
	case *workflowservice.ExecuteMultiOperationRequest:
		for _, op := range r.GetOperations() {
			if u := op.GetUpdateWorkflow(); u != nil {
				input := u.GetRequest().GetInput()
				found = append(found, decide{input.GetName(), input.GetHeader()})
			}
		}
	}
	for _, d := range found {
		if who.role == "approver" && d.name != decideName {
			return fmt.Sprintf("an approver may send only %s, not %q", decideName, d.name)
		}
		if d.name != decideName {
			continue
		}
		approver, ok := headerString(d.header, approverHeader)
		if !ok {
			return fmt.Sprintf("a %s needs the %s header: a JSON string naming the approver (your token's subject)", decideName, approverHeader)
		}
		groups, ok := headerStrings(d.header, groupsHeader)
		if !ok {
			return fmt.Sprintf("the %s header must be a JSON array of at most %d names", groupsHeader, maxGroups)
		}
		if who.role == "gateway" {
			// The gateway decides for the users it verified itself (its own tokens, Slack's signature).
			if !gatewayName(approver) {
				return fmt.Sprintf("the %s header is not a name of 1 to 200 characters", approverHeader)
			}
			continue
		}
		if approver != subject {
			return fmt.Sprintf("%s may decide only as %s", subject, subject)
		}
		for _, g := range groups {
			if !contains(who.groups, g) {
				return fmt.Sprintf("%s is not in group %s", subject, g)
			}
		}
	}
	return ""
}

// headerString reads a json/plain header field holding a string; false when absent or anything else.
func headerString(h *commonpb.Header, key string) (string, bool) {
	payload, ok := h.GetFields()[key]
	if !ok || string(payload.GetMetadata()["encoding"]) != "json/plain" || len(payload.GetData()) > 1024 {
		return "", false
	}
	var s string
	if err := json.Unmarshal(payload.GetData(), &s); err != nil {
		return "", false
	}
	return s, true
}

// headerStrings reads a json/plain array of strings; absent is an empty list, anything malformed false.
func headerStrings(h *commonpb.Header, key string) ([]string, bool) {
	payload, ok := h.GetFields()[key]
	if !ok {
		return nil, true
	}
	if string(payload.GetMetadata()["encoding"]) != "json/plain" || len(payload.GetData()) > 8192 {
		return nil, false
	}
	var list []string
	if err := json.Unmarshal(payload.GetData(), &list); err != nil || len(list) > maxGroups {
		return nil, false
	}
	return list, true
}

// gatewayName: what the gateway may vouch for (its users' names, `webhook:…`), as the workflow reads it.
func gatewayName(s string) bool {
	n := 0
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
		n++
	}
	return n >= 1 && n <= 200
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
