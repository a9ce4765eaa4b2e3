/**
 * A Temporal connection that counts its gRPC calls by method (`DescribeWorkflowExecution`, …), for the
 * tests that pin what one decision costs. The counter sits outermost, before the retries every
 * connection has by default, so a retried call counts once per attempt.
 */
import {
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionOptions,
} from '@temporalio/client';

type GrpcInterceptor = NonNullable<ConnectionOptions['interceptors']>[number];

export interface CountedConnection {
  connection: Connection;
  /** The methods `fn` made the connection call, in order, the task queue's worker check left out. */
  callsOf(fn: () => Promise<unknown>): Promise<string[]>;
}

export async function countedConnection(address: string): Promise<CountedConnection> {
  let sent: string[] = [];
  const counter: GrpcInterceptor = (options, nextCall) => {
    sent.push(options.method_definition.path.split('/').pop()!);
    return nextCall(options) as ReturnType<GrpcInterceptor>;
  };
  const connection = await Connection.connect({
    address,
    interceptors: [counter, makeGrpcRetryInterceptor(defaultGrpcRetryOptions())],
  });
  return {
    connection,
    async callsOf(fn) {
      sent = [];
      await fn();
      return sent.filter((m) => m !== 'DescribeTaskQueue');
    },
  };
}
