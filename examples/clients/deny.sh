#!/bin/sh
# Deny a waiting tool call with nothing but the stock `temporal` CLI, through the `decide` signal.
#
#   examples/clients/deny.sh <turn id> <tool call id> [reason]
#
# Connection settings come from the usual TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE (or a CLI profile).
# A signal has no answer: the turn records the decision, or a DECISION_REJECTED event with the reason
# (unknown id, already decided, malformed) — the query at the end shows which.
set -eu
turn="$1"
call="$2"
reason="${3:-denied from the temporal CLI}"

# What waits for a human, from visibility (the search attributes Tiller keeps on every turn).
temporal workflow list --query "TillerStatus = 'awaiting_approval' AND WorkflowId = '$turn'"

# The decision: the same JSON the update takes (docs/architecture.md, "The wire contract"). Keep the reason free of double quotes.
temporal workflow signal --workflow-id "$turn" --name decide \
  --input "{\"id\": \"$call\", \"approved\": false, \"reason\": \"$reason\", \"approver\": \"temporal-cli\"}"

# The turn's state, as any client reads it.
temporal workflow query --workflow-id "$turn" --name state
