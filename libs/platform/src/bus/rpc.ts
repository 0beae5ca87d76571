import { errors as natsErrors, type Msg, type Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import {
  AppError,
  anonymousCaller,
  fillSubject,
  isRpcReplyFrame,
  mayAsk,
  subjectParams,
  wildcardSubject,
  type Caller,
  type RpcContract,
  type RpcReplyFrame,
  type RpcRequestFrame,
  type SubjectParams,
} from '@qw/contracts';
import type { Static, TSchema } from 'typebox';
import { inboxOwnerOf, type BusConnection } from './connection.ts';
import { describeProblems } from './validation.ts';
import { busMetrics } from './metrics.ts';
import { inTransaction, trackTransactions, untrackTransactions } from '../db/transaction-scope.ts';
import { buildSerializer } from '../http/schema-compilers.ts';

/**
 * `params` are the parameters of the subject the request came on (`{node}`): for node agents'
 * requests, the name of the node asking, which its NATS credentials guarantee.
 */
export type RpcHandler<Req extends TSchema, Res extends TSchema> = (
  data: Static<Req>,
  caller: Caller,
  params: SubjectParams,
) => Promise<Static<Res>>;

export type RpcEndpoint = {
  contract: RpcContract;
  handler: RpcHandler<TSchema, TSchema>;
};

/** Pairs a contract with its handler, keeping the two types tied together. */
export function endpoint<Req extends TSchema, Res extends TSchema>(
  contract: RpcContract<Req, Res>,
  handler: RpcHandler<Req, Res>,
): RpcEndpoint {
  return { contract, handler: handler as RpcHandler<TSchema, TSchema> };
}

const encoder = new TextEncoder();

function reply(msg: Msg, frame: RpcReplyFrame<unknown>): void {
  msg.respond(encoder.encode(JSON.stringify(frame)));
}

/** How an answer's frame starts on the wire; what follows, but for the closing brace, is its data. */
const answeredPrefix = '{"ok":true,"data":';

/**
 * A forwarded contract's answer is written through its response schema (fast-json-stringify, as
 * the gateway's route would write it): only the fields the schema names leave the service. The
 * process's serializer pool (schema-compilers.ts) compiles each schema once.
 */
const writeThroughSchema = buildSerializer({}, undefined);

function answer(msg: Msg, contract: RpcContract, data: unknown): void {
  if (!contract.forwarded) {
    reply(msg, { ok: true, data });
    return;
  }
  const write = writeThroughSchema({
    schema: contract.response,
    method: 'RPC',
    url: contract.subject,
    httpStatus: '200',
  }) as (data: unknown) => string;
  msg.respond(encoder.encode(`${answeredPrefix}${write(data)}}`));
}

/** A forwarded RPC's answer as the service wrote it (`json`), for the gateway to send unparsed (RpcClient.forward). */
export class ForwardedAnswer {
  constructor(readonly json: string) {}
}

export type RpcServer = { stop(): Promise<void> };

/** Turns a request's `caller_token` into the Caller it proves (see caller-tokens.ts). */
export type CallerVerifier = (token: string) => Caller;

/** For processes that serve nobody's personal data (tests of the bus itself): every request is anonymous. */
export const refuseEveryCallerToken: CallerVerifier = () => {
  throw new AppError('invalid_token', 'This service accepts no caller assertions.');
};

/**
 * Serves a service's request/reply endpoints on queue-group subscriptions (replicas share the
 * load). A request is answered only for a NATS user the bus declaration lets ask it (`mayAsk`),
 * named by its inbox `_INBOX_U.<user>.<id>`, the one subject the answer reaches: the server lets
 * only that user read it, and lets only declared askers publish the request at all, so a false
 * name gains nothing. Without authentication (tests of the bus mechanics) nobody has a name and
 * the check is off. The caller is what the request's signed assertion proves, never what the
 * frame says: a frame that names its own caller, or carries an assertion that does not verify, is
 * refused; one without an assertion is anonymous. Requests and answers are checked against the contract; a
 * handler's AppError goes back with its code, anything else as `internal` without details.
 */
export async function serveRpc(
  bus: BusConnection,
  options: { service: string; logger: Logger; endpoints: RpcEndpoint[]; verifyCaller: CallerVerifier },
): Promise<RpcServer> {
  const subscriptions: Subscription[] = [];
  for (const { contract, handler } of options.endpoints) {
    const subscription = bus.nc.subscribe(bus.ns.subject(wildcardSubject(contract.subject)), {
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
      busMetrics.rpcHandled.observe(
        { subject: contract.subject, outcome },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    const refuse = (code: 'bad_request' | 'validation_failed' | 'invalid_token' | 'forbidden', message: string) => {
      observe(code);
      if (msg.reply) reply(msg, { ok: false, error: { code, message } });
    };
    const params = subjectParams(contract.subject, bus.ns.strip(msg.subject));
    if (bus.user !== undefined) {
      const asker = inboxOwnerOf(msg.reply);
      if (!asker || !mayAsk(asker, contract, params ?? {}))
        return refuse('forbidden', `${contract.subject} does not answer ${asker ?? 'an unnamed asker'}.`);
    }
    let frame: Partial<RpcRequestFrame<unknown>> & { caller?: unknown };
    try {
      frame = JSON.parse(msg.string()) as typeof frame;
    } catch {
      return refuse('bad_request', 'The request is not JSON.');
    }
    if (typeof frame !== 'object' || frame === null) return refuse('bad_request', 'The request is not a frame.');
    if ('caller' in frame) return refuse('invalid_token', 'A request cannot name its own caller.');
    let caller = anonymousCaller;
    if (frame.caller_token !== undefined) {
      if (typeof frame.caller_token !== 'string') return refuse('invalid_token', 'The caller token is malformed.');
      try {
        caller = options.verifyCaller(frame.caller_token);
      } catch (error) {
        return refuse('invalid_token', (error as Error).message);
      }
    }
    if (!params) return refuse('bad_request', 'The subject does not fit this request.');
    const problems = describeProblems(contract.request, frame.data ?? {});
    if (problems.length > 0) return refuse('validation_failed', problems.join('; '));
    try {
      const data = await handler(frame.data ?? {}, caller, params);
      const responseProblems = describeProblems(contract.response, data, 'response');
      if (responseProblems.length > 0)
        throw new Error(`${contract.subject} answered outside its contract: ${responseProblems.join('; ')}`);
      observe('ok');
      answer(msg, contract, data);
    } catch (handlerError) {
      if (handlerError instanceof AppError) {
        observe(handlerError.code);
        return reply(msg, { ok: false, error: handlerError.toJSON() });
      }
      options.logger.error({ err: handlerError, subject: contract.subject }, 'rpc handler failed');
      observe('internal');
      reply(msg, {
        ok: false,
        error: { code: 'internal', message: 'Something went wrong on our side. Please try again.' },
      });
    }
  }

  return {
    async stop() {
      for (const subscription of subscriptions) subscription.unsubscribe();
      if (!bus.nc.isClosed()) await bus.nc.flush().catch(() => undefined);
    },
  };
}

/**
 * An RPC is asked before a transaction starts, never inside one (a network call under a lock holds
 * the lock and a connection while the other service answers). Tests refuse one (the testkit
 * switches this on); production runs without the check's cost, transactions untracked.
 */
let refuseInTransaction = false;

/** Makes `RpcClient.request` throw when asked inside an open transaction (the testkit calls it). */
export function refuseRpcInTransactions(): void {
  trackTransactions();
  refuseInTransaction = true;
}

/**
 * Production's behaviour again after `refuseRpcInTransactions`: no check, no tracking (its async
 * context costs every promise a hook). Benchmarks call it, since importing the testkit switched
 * the check on and production runs without it.
 */
export function allowRpcInTransactions(): void {
  refuseInTransaction = false;
  untrackTransactions();
}

type RequestOptions = { timeoutMs?: number; params?: SubjectParams };

/** Calls other services. Errors come back as AppError with the callee's code. */
export class RpcClient {
  constructor(
    private readonly bus: BusConnection,
    private readonly defaultTimeoutMs = 5000,
  ) {}

  /**
   * Asks on the person's behalf when `caller` is one: their signed assertion travels with the
   * request (a Caller without one cannot be forwarded; services only ever hold verified ones).
   */
  async request<Req extends TSchema, Res extends TSchema>(
    contract: RpcContract<Req, Res>,
    data: Static<Req>,
    caller: Caller = anonymousCaller,
    options: RequestOptions = {},
  ): Promise<Static<Res>> {
    return this.dataOf(contract, await this.ask(contract, data, caller, options)) as Static<Res>;
  }

  /**
   * The same question for a forwarded contract (`defineRpc(…, { forwarded: true })`): its answer
   * as the service wrote it, unparsed, for the gateway to send on as it is. A refusal still
   * throws its AppError.
   */
  async forward<Req extends TSchema, Res extends TSchema>(
    contract: RpcContract<Req, Res>,
    data: Static<Req>,
    caller: Caller = anonymousCaller,
    options: RequestOptions = {},
  ): Promise<ForwardedAnswer> {
    if (!contract.forwarded) throw new Error(`${contract.subject}: not a forwarded contract`);
    const text = await this.ask(contract, data, caller, options);
    if (text.startsWith(answeredPrefix) && text.endsWith('}'))
      return new ForwardedAnswer(text.slice(answeredPrefix.length, -1));
    this.dataOf(contract, text);
    throw new AppError('internal', `${contract.subject}: answer is not a reply frame`);
  }

  /** Sends the request; the answer's text. */
  private async ask(contract: RpcContract, data: unknown, caller: Caller, options: RequestOptions): Promise<string> {
    if (refuseInTransaction && inTransaction())
      throw new Error(
        `${contract.subject}: asked inside an open transaction (ask before it starts, or read a local copy)`,
      );
    const problems = describeProblems(contract.request, data);
    if (problems.length > 0) throw new AppError('validation_failed', problems.join('; '));
    if (caller.userId && !caller.assertion) {
      throw new Error(`${contract.subject}: a caller without its signed assertion cannot be forwarded`);
    }
    // A bug, not a refusal to pass on: the server would drop the request with a bare permission error.
    const user = this.bus.user;
    if (user !== undefined && !mayAsk(user, contract, options.params ?? {}))
      throw new Error(
        `${contract.subject}: ${user} may not ask it (list it in ${user}'s calls in libs/contracts/src/bus-access.ts)`,
      );
    const request: RpcRequestFrame<unknown> = caller.assertion ? { caller_token: caller.assertion, data } : { data };
    const subject = this.bus.ns.subject(fillSubject(contract.subject, options.params));
    let answer: Msg;
    try {
      answer = await this.bus.nc.request(subject, JSON.stringify(request), {
        timeout: options.timeoutMs ?? this.defaultTimeoutMs,
      });
    } catch (error) {
      if (error instanceof natsErrors.PermissionViolationError)
        throw new AppError('forbidden', `${contract.subject}: this process may not ask that`);
      if (error instanceof natsErrors.NoRespondersError)
        throw new AppError('unavailable', `${contract.subject}: no service is answering`);
      if (error instanceof natsErrors.TimeoutError)
        throw new AppError('timeout', `${contract.subject}: no answer in time`);
      if (error instanceof natsErrors.RequestError && error.isNoResponders()) {
        throw new AppError('unavailable', `${contract.subject}: no service is answering`);
      }
      throw new AppError('unavailable', `${contract.subject}: ${(error as Error).message}`);
    }
    return answer.string();
  }

  /** An answer's data, or the AppError it carries. */
  private dataOf(contract: RpcContract, text: string): unknown {
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      throw new AppError('internal', `${contract.subject}: answer is not JSON`);
    }
    if (!isRpcReplyFrame(frame)) throw new AppError('internal', `${contract.subject}: answer is not a reply frame`);
    if (!frame.ok) throw new AppError(frame.error.code, frame.error.message, frame.error.details);
    return frame.data;
  }
}
