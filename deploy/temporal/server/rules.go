package main

// The rules beyond "which role may call which method": batch operations, who a turn's starter is, and
// which cluster-wide reads are the admin's.

import (
	"encoding/json"
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/workflowservice/v1"
)

// Tiller's message names: signals and updates the workflows act on (src/core/contract/messages.ts). A batch
// may not carry them: the batcher sends them as the server's own identity, with no verified approver.
var tillerMessages = map[string]bool{"decide": true, "turnProgress": true, "send": true, "revokeTrust": true}

// The workflow type of a turn, whose input's startedBy the no-self-approval rule reads.
const turnWorkflowType = "agentTurn"

// adminOnly: methods no role but admin calls, whatever their scope or access.
var adminOnly = map[string]bool{"ListNamespaces": true, "StartBatchOperation": true, "StopBatchOperation": true}

// checkBatch: an admin's batch may terminate, cancel, delete, reset, change options or signal — but not
// send one of Tiller's messages (a decision has to come from someone, with the verified header).
func checkBatch(request any) string {
	r, ok := request.(*workflowservice.StartBatchOperationRequest)
	if !ok {
		return ""
	}
	if signal := r.GetSignalOperation(); signal != nil && tillerMessages[signal.GetSignal()] {
		return fmt.Sprintf("a batch may not send %q: send it to each workflow, as yourself", signal.GetSignal())
	}
	return ""
}

// stampStarter makes a turn's startedBy the caller's verified subject on every start request of a role
// other than the gateway (which vouches for the users it verified, as with decide): whatever the client
// wrote is replaced, so "no one approves their own turn" holds for turns started by admins, workers and
// the CLI too. An input the server cannot read (an encrypted payload) cannot be stamped and is refused.
func stampStarter(subject string, who *principal, request any) string {
	if who.role == "gateway" {
		return ""
	}
	type start struct {
		workflowType string
		input        *commonpb.Payloads
	}
	var starts []start
	switch r := request.(type) {
	case *workflowservice.StartWorkflowExecutionRequest:
		starts = append(starts, start{r.GetWorkflowType().GetName(), r.GetInput()})
	case *workflowservice.SignalWithStartWorkflowExecutionRequest:
		starts = append(starts, start{r.GetWorkflowType().GetName(), r.GetInput()})
	case *workflowservice.ExecuteMultiOperationRequest:
		for _, op := range r.GetOperations() {
			if s := op.GetStartWorkflow(); s != nil {
				starts = append(starts, start{s.GetWorkflowType().GetName(), s.GetInput()})
			}
		}
	}
	for _, s := range starts {
		if s.workflowType != turnWorkflowType {
			continue
		}
		if reason := stamp(s.input, subject); reason != "" {
			return reason
		}
	}
	return ""
}

func stamp(input *commonpb.Payloads, subject string) string {
	payloads := input.GetPayloads()
	if len(payloads) == 0 {
		return "a turn's start needs its input"
	}
	first := payloads[0]
	if string(first.GetMetadata()["encoding"]) != "json/plain" {
		return "a turn started by this role needs a plain JSON input (the server records its starter in it); start encrypted turns through the gateway"
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(first.GetData(), &fields); err != nil || fields == nil {
		return "a turn's input must be a JSON object"
	}
	name, _ := json.Marshal(subject)
	fields["startedBy"] = name
	data, err := json.Marshal(fields)
	if err != nil {
		return "a turn's input could not be stamped"
	}
	first.Data = data
	return ""
}
