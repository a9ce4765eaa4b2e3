"""Approve a waiting Tiller tool call from Python, with PyPI's `temporalio` SDK and nothing else.

    python examples/clients/approve.py <temporal address> <turn id> <approver>

Finds the turn through the search attributes Tiller keeps, reads the `state` query, approves the first
pending call through the `decide` update (plain JSON, the default converter), and shows that a second
decision for the same call is refused by the workflow's validator. Prints one JSON line.
"""
import asyncio
import json
import os
import sys

from temporalio.client import Client, WorkflowUpdateFailedError


async def main() -> None:
    address, turn_id, approver = sys.argv[1:4]
    client = await Client.connect(address, namespace=os.environ.get("TEMPORAL_NAMESPACE", "default"))
    query = 'TillerStatus = "awaiting_approval" AND WorkflowId = "%s"' % turn_id
    listed = [wf.id async for wf in client.list_workflows(query)]
    handle = client.get_workflow_handle(turn_id)
    state = await handle.query("state")
    pending = state["pendingApprovals"][0]
    # The digest binds the approval to the arguments read above: a changed call would be refused.
    decision = await handle.execute_update(
        "decide",
        {"id": pending["id"], "approved": True, "approver": approver, "argsDigest": pending["argsDigest"]},
    )
    try:
        await handle.execute_update("decide", {"id": pending["id"], "approved": False})
        rejected = None
    except WorkflowUpdateFailedError as err:
        rejected = str(err.cause)
    print(
        json.dumps(
            {"listed": listed, "tool": pending["tool"], "args": pending["args"], "decision": decision, "rejected": rejected}
        )
    )


asyncio.run(main())
# Skip interpreter finalisation: the SDK's native runtime threads can abort it (PyGILState_Release).
sys.stdout.flush()
os._exit(0)
