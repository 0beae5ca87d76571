import { errors as natsErrors, type Msg, type Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import {
  AppError, CallerSchema, anonymousCaller, isRpcReplyFrame,
  type Caller, type RpcContract, type RpcReplyFrame,
} from '@qw/contracts';
import type { Static, TSchema } from 'typebox';
import type { BusConnection } from './connection.ts';
import { describeProblems } from './validation.ts';
import { busMetrics } from './metrics.ts';

export type RpcHandler<Req extends TSchema, Res extends TSchema> = (data: Static<Req>, caller: Caller) => Promise<Static<Res>>;

export type RpcEndpoint = {
  contract: RpcContract;
  handler: RpcHandler<TSchema, TSchema>;
};

/** Pairs a contract with its handler, keeping the two types tied together. */
export function endpoint<Req extends TSchema, Res extends TSchema>(contract: RpcContract<Req, Res>, handler: RpcHandler<Req, Res>): RpcEndpoint {
  return { contract, handler: handler as RpcHandler<TSchema, TSchema> };
}

const encoder = new TextEncoder();

function reply(msg: Msg, frame: RpcReplyFrame<unknown>): void {
  msg.respond(encoder.encode(JSON.stringify(frame)));
}

export type RpcServer = { stop(): Promise<void> };

/**
 * Serves a service's request/reply endpoints on queue-group subscriptions (replicas share the
 * load). Requests and answers are checked against the contract; a handler's AppError goes back
 * with its code, anything else as `internal` without details.
 */
export async function serveRpc(bus: BusConnection, options: { service: string; logger: Logger; endpoints: RpcEndpoint[] }): Promise<RpcServer> {
  const subscriptions: Subscription[] = [];
  for (const { contract, handler } of options.endpoints) {
    const subscription = bus.nc.subscribe(bus.ns.subject(contract.subject), {
      queue: `${options.service}.rpc`,
      callback: (error, msg) => {
        if (error) {
          options.logger.error({ err: error, subject: contract.subject }, 'rpc subscription failed');
          return;
        }
        void handle(msg, contract, handler);
      },
    });
    subscriptions.push(subscription);
  }
  await bus.nc.flush();

  async function handle(msg: Msg, contract: RpcContract, handler: RpcHandler<TSchema, TSchema>): Promise<void> {
    const started = process.hrtime.bigint();
    const observe = (outcome: string) =>
      busMetrics.rpcHandled.observe({ subject: contract.subject, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
    let frame: { caller?: unknown; data?: unknown };
    try {
      frame = JSON.parse(msg.string()) as typeof frame;
    } catch {
      observe('bad_request');
      return reply(msg, { ok: false, error: { code: 'bad_request', message: 'The request is not JSON.' } });
    }
    const caller = frame.caller ?? anonymousCaller;
    const problems = [...describeProblems(CallerSchema, caller, 'caller'), ...describeProblems(contract.request, frame.data ?? {})];
    if (problems.length > 0) {
      observe('validation_failed');
      return reply(msg, { ok: false, error: { code: 'validation_failed', message: problems.join('; ') } });
    }
    try {
      const data = await handler(frame.data ?? {}, caller as Caller);
      const responseProblems = describeProblems(contract.response, data, 'response');
      if (responseProblems.length > 0) throw new Error(`${contract.subject} answered outside its contract: ${responseProblems.join('; ')}`);
      observe('ok');
      reply(msg, { ok: true, data });
    } catch (handlerError) {
      if (handlerError instanceof AppError) {
        observe(handlerError.code);
        return reply(msg, { ok: false, error: handlerError.toJSON() });
      }
      options.logger.error({ err: handlerError, subject: contract.subject }, 'rpc handler failed');
      observe('internal');
      reply(msg, { ok: false, error: { code: 'internal', message: 'Something went wrong on our side. Please try again.' } });
    }
  }

  return {
    async stop() {
      for (const subscription of subscriptions) subscription.unsubscribe();
      if (!bus.nc.isClosed()) await bus.nc.flush().catch(() => undefined);
    },
  };
}

/** Calls other services. Errors come back as AppError with the callee's code. */
export class RpcClient {
  constructor(private readonly bus: BusConnection, private readonly defaultTimeoutMs = 5000) {}

  async request<Req extends TSchema, Res extends TSchema>(
    contract: RpcContract<Req, Res>,
    data: Static<Req>,
    caller: Caller = anonymousCaller,
    options: { timeoutMs?: number } = {},
  ): Promise<Static<Res>> {
    const problems = describeProblems(contract.request, data);
    if (problems.length > 0) throw new AppError('validation_failed', problems.join('; '));
    let answer;
    try {
      answer = await this.bus.nc.request(this.bus.ns.subject(contract.subject), JSON.stringify({ caller, data }), {
        timeout: options.timeoutMs ?? this.defaultTimeoutMs,
      });
    } catch (error) {
      if (error instanceof natsErrors.NoRespondersError) throw new AppError('unavailable', `${contract.subject}: no service is answering`);
      if (error instanceof natsErrors.TimeoutError) throw new AppError('timeout', `${contract.subject}: no answer in time`);
      if (error instanceof natsErrors.RequestError && error.isNoResponders()) {
        throw new AppError('unavailable', `${contract.subject}: no service is answering`);
      }
      throw new AppError('unavailable', `${contract.subject}: ${(error as Error).message}`);
    }
    let frame: unknown;
    try {
      frame = JSON.parse(answer.string());
    } catch {
      throw new AppError('internal', `${contract.subject}: answer is not JSON`);
    }
    if (!isRpcReplyFrame(frame)) throw new AppError('internal', `${contract.subject}: answer is not a reply frame`);
    if (!frame.ok) throw new AppError(frame.error.code, frame.error.message, frame.error.details);
    return frame.data as Static<Res>;
  }
}
