import { AckPolicy, DeliverPolicy, nanos, type Consumer, type ConsumerMessages, type JsMsg, type NatsConnection } from 'nats';
import { pipelinePayloadProblems, type PipelinePayloadOf, type PipelineSubject } from '@svc/contracts';
import { JetStreamErrorCode, errorText, jetStreamErrorCode } from './jetstream-errors';
import { decodeJson } from './json-payload';
import { isNatsOutage } from './nats-outage';
import { DEFAULT_RETRY_BACKOFF, retryDelayMs, type RandomSource, type RetryBackoff } from './retry-backoff';
import { RetryableWorkError, TerminalWorkError, WorkAbortedError } from './work-errors';
import { busNames } from './bus-names';

export interface WorkContext {
  /** 1 on the first delivery; grows with every redelivery (retry, or an instance that died). */
  deliveryCount: number;
  /**
   * Lends the message's worker slot to other messages while its handler waits for something only another message can
   * bring (the batch before it): the message stays in hand (heartbeated, no delivery spent) and the slot can take the
   * very message it waits for. Returns the way back, which resolves once a slot is free again (before new messages are
   * fetched); undefined when maxLentSlots messages already wait that way and none waits to take a slot back, or this one
   * already waits that way: then it waits in its slot, and should ask again (a handler queued to take a slot back may
   * need the very one it holds, and is then lent past maxLentSlots).
   */
  lendSlot?: () => SlotReturn | undefined;
}

/** Takes a lent worker slot back: resolves once one is free. */
export type SlotReturn = () => Promise<void>;

export interface PipelineWorkerOptions<S extends PipelineSubject> {
  subject: S;
  /** Shared by every instance of a service: they pull from one durable consumer and split the work. */
  durableName: string;
  /**
   * Messages processed at once by this instance (its slots); it holds no more unacknowledged than this, plus those
   * waiting outside a slot (maxLentSlots).
   */
  concurrency: number;
  /** How long a delivery may go without an outcome or a heartbeat before it is redelivered. Default 30 s. */
  ackWaitMs?: number;
  /** Deliveries before a message is given up. Default 5. */
  maxDeliver?: number;
  /** Messages that may wait outside a worker slot at once (WorkContext.lendSlot). Default 4 × concurrency. */
  maxLentSlots?: number;
  guard: (payload: unknown) => payload is PipelinePayloadOf<S>;
  handle: (payload: PipelinePayloadOf<S>, context: WorkContext) => Promise<void>;
  /** Called before a message is terminated; if it throws, the message comes back later to be given up again. */
  /** `detail`: what a driver or server said of the last failure (a work error's detail), when the reason leaves it out. */
  onGiveUp?: (payload: unknown, reason: string, detail?: string) => Promise<void>;
  /** Delay before redelivering after a retryable failure. Default 1 s, doubling, at most 60 s; equal jitter. */
  retryBackoff?: RetryBackoff;
  /** The random source of the backoff's jitter. Default Math.random. */
  retryJitter?: RandomSource;
  /** Trouble the worker recovers from by itself (a failed fetch, a lost ack). Default: ignored. */
  onError?: (error: unknown, activity: string) => void;
}

const DEFAULT_ACK_WAIT_MS = 30000;
const DEFAULT_MAX_DELIVER = 5;
/** How long one pull request waits for messages before the next one is issued (JetStream minimum: 1 s). */
const FETCH_EXPIRES_MS = 5000;
const FETCH_RETRY_BACKOFF: RetryBackoff = { initialMs: 250, maxMs: 5000 };
const ACK_RETRY_BACKOFF: RetryBackoff = { initialMs: 250, maxMs: 2000 };
const ACK_REPEAT_TIMEOUT_MS = 5000;
const ACK_PAYLOAD = new TextEncoder().encode('+ACK');

type Outcome = { ok: true } | { ok: false; error: unknown };

/** A handler's lent slot: `out` while it holds none; `resume` once it asked for one back. */
interface SlotLoan {
  out: boolean;
  resume?: () => void;
  /** Ends a wait to take a slot back at stop: the handler fails with WorkAbortedError and its message goes back. */
  abandon?: (error: WorkAbortedError) => void;
}

/**
 * A durable pull consumer of one pipeline subject. Handler outcomes: resolve → ack (confirmed by the
 * server); RetryableWorkError or any unclassified error → nak with capped, jittered exponential backoff;
 * TerminalWorkError, a malformed payload, or more than maxDeliver deliveries → onGiveUp, then term;
 * WorkAbortedError (the handler stopped waiting for its process to stop) → nak at once, never given up.
 *
 * The consumer's server-side max_deliver is unlimited on purpose: the bound is enforced here, so a message
 * whose last attempt died with its instance, or whose give-up report failed, still comes back to be given
 * up instead of lying in the work queue unseen.
 */
export class PipelineWorker<S extends PipelineSubject> {
  private readonly ackWaitMs: number;
  private readonly maxDeliver: number;
  private readonly retryBackoff: RetryBackoff;
  private readonly retryJitter: RandomSource;
  private readonly maxLentSlots: number;
  private readonly inFlight = new Set<Promise<void>>();
  /** Messages in flight that hold no slot: waiting (WorkContext.lendSlot), or queued in `retaking` for one. */
  private lent = 0;
  private readonly retaking: SlotLoan[] = [];
  private state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  private currentFetch: ConsumerMessages | undefined;
  private pullLoop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;

  constructor(
    private readonly connection: NatsConnection,
    private readonly options: PipelineWorkerOptions<S>,
  ) {
    this.ackWaitMs = options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
    this.maxDeliver = options.maxDeliver ?? DEFAULT_MAX_DELIVER;
    this.retryBackoff = options.retryBackoff ?? DEFAULT_RETRY_BACKOFF;
    this.retryJitter = options.retryJitter ?? Math.random;
    this.maxLentSlots = options.maxLentSlots ?? 4 * options.concurrency;
    if (options.durableName.length === 0) throw new Error('a PipelineWorker needs a durable name');
    requirePositiveInteger('concurrency', options.concurrency);
    requirePositiveInteger('ackWaitMs', this.ackWaitMs);
    requirePositiveInteger('maxDeliver', this.maxDeliver);
    if (!Number.isSafeInteger(this.maxLentSlots) || this.maxLentSlots < 0) throw new Error(`PipelineWorker maxLentSlots must be an integer >= 0, got ${this.maxLentSlots}`);
  }

  /** Creates (or updates) the durable consumer and starts pulling. */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`worker ${this.options.durableName} was already started`);
    const consumer = await this.ensureConsumer();
    if (this.state !== 'new') return; // stopped while starting
    this.state = 'running';
    this.pullLoop = this.pull(consumer);
  }

  /** Stops fetching, returns messages not yet started, and waits for the handlers in flight. */
  async stop(): Promise<void> {
    if (this.state === 'new') {
      this.state = 'stopped';
      return;
    }
    if (this.state === 'running') {
      this.state = 'stopping';
      this.abandonRetakes();
      this.notifyChange();
      await this.currentFetch?.close().catch((error: unknown) => this.report(error, 'closing the pull request'));
    }
    await this.pullLoop;
    await Promise.all([...this.inFlight]);
    this.state = 'stopped';
  }

  private async ensureConsumer(): Promise<Consumer> {
    const { durableName, subject } = this.options;
    const names = busNames();
    const stream = names.workStream;
    const manager = await this.connection.jetstreamManager();
    const changeable = { filter_subject: names.subject(subject), ack_wait: nanos(this.ackWaitMs), max_deliver: -1 };
    try {
      await manager.consumers.add(stream, {
        durable_name: durableName,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ...changeable,
      });
    } catch (error) {
      const code = jetStreamErrorCode(error);
      if (code !== JetStreamErrorCode.consumerAlreadyExists && code !== JetStreamErrorCode.consumerNameInUse) {
        throw new Error(`cannot create consumer ${durableName} on ${stream}: ${errorText(error)}`, { cause: error });
      }
      await manager.consumers.update(stream, durableName, changeable);
    }
    return this.connection.jetstream().consumers.get(stream, durableName);
  }

  /**
   * Pulls only as many messages as there are free slots, so no message waits in a local buffer while its
   * ack deadline runs, and an idle instance of the service can take the rest. Handlers taking a lent slot back come
   * first. One that does so while a fetch is out may briefly make the slots in use exceed `concurrency` by that fetch.
   */
  private async pull(consumer: Consumer): Promise<void> {
    let consecutiveFailures = 0;
    while (this.state === 'running' && !this.connection.isClosed()) {
      const free = this.options.concurrency - this.slotsInUse() - this.retaking.length;
      if (free <= 0) {
        await this.nextChange();
        continue;
      }
      try {
        const messages = await consumer.fetch({ max_messages: free, expires: FETCH_EXPIRES_MS });
        this.currentFetch = messages;
        if (this.state !== 'running') await messages.close();
        for await (const message of messages) this.dispatch(message);
        consecutiveFailures = 0;
      } catch (error) {
        if (this.state !== 'running' || this.connection.isClosed()) break;
        consecutiveFailures += 1;
        this.report(error, 'fetching messages');
        await this.nextChange(retryDelayMs(consecutiveFailures, FETCH_RETRY_BACKOFF, this.retryJitter));
      } finally {
        this.currentFetch = undefined;
      }
    }
  }

  private dispatch(message: JsMsg): void {
    if (this.state !== 'running') {
      // Arrived while stopping: hand it straight back instead of letting it wait out the ack deadline.
      this.safely(() => message.nak(), 'returning a message at stop');
      return;
    }
    const task: Promise<void> = this.process(message)
      .catch((error: unknown) => this.report(error, 'processing a message'))
      .finally(() => {
        this.inFlight.delete(task);
        this.grantSlots();
        this.notifyChange();
      });
    this.inFlight.add(task);
  }

  private async process(message: JsMsg): Promise<void> {
    const { subject, guard, handle } = this.options;
    const deliveryCount = message.info.deliveryCount;
    const decoded = decodeJson(message.data);
    if (!decoded.ok) return this.giveUp(message, decoded.text, `malformed payload on ${subject}: not JSON (${decoded.reason})`);
    const payload = decoded.value;
    if (!guard(payload)) {
      const problems = pipelinePayloadProblems(subject, payload);
      const detail = problems.length > 0 ? problems.join('; ') : 'rejected by the payload guard';
      return this.giveUp(message, payload, `malformed payload on ${subject}: ${detail}`);
    }
    if (deliveryCount > this.maxDeliver) {
      return this.giveUp(
        message,
        payload,
        `delivered ${deliveryCount} times, more than maxDeliver (${this.maxDeliver}): earlier attempts ended without an outcome`,
      );
    }

    const loan: SlotLoan = { out: false };
    const outcome = await this.runHandler(message, () => handle(payload, { deliveryCount, lendSlot: () => this.lendSlot(loan) }));
    this.endLoan(loan);
    if (outcome.ok) return this.acknowledge(message);
    const { error } = outcome;
    if (error instanceof WorkAbortedError) {
      this.safely(() => message.nak(), 'handing a message back at stop');
      return;
    }
    if (error instanceof TerminalWorkError) return this.giveUp(message, payload, `terminal failure: ${error.message}`, error.detail);
    if (deliveryCount >= this.maxDeliver) {
      const detail = error instanceof RetryableWorkError ? error.detail : undefined;
      return this.giveUp(message, payload, `failed ${deliveryCount} of ${this.maxDeliver} deliveries; last error: ${errorText(error)}`, detail);
    }
    this.safely(() => message.nak(retryDelayMs(deliveryCount, this.retryBackoff, this.retryJitter)), 'requesting a redelivery');
  }

  private slotsInUse(): number {
    return this.inFlight.size - this.lent;
  }

  /** Past maxLentSlots a slot is still lent while another handler waits to take one back: it may be this very slot it needs. */
  private lendSlot(loan: SlotLoan): SlotReturn | undefined {
    if (loan.out || (this.lent >= this.maxLentSlots && this.retaking.length === 0)) return undefined;
    loan.out = true;
    this.lent += 1;
    // The freed slot goes first to a handler waiting to take one back, then to new messages.
    this.grantSlots();
    this.notifyChange();
    return () => this.retakeSlot(loan);
  }

  private retakeSlot(loan: SlotLoan): Promise<void> {
    if (!loan.out || loan.resume !== undefined) return Promise.resolve();
    if (this.state !== 'running') return Promise.reject(new WorkAbortedError());
    return new Promise((resume, abandon) => {
      loan.resume = resume;
      loan.abandon = abandon;
      this.retaking.push(loan);
      this.grantSlots();
    });
  }

  /**
   * At stop, a handler waiting to take a slot back would otherwise wait for the handlers in flight to end and then do
   * its whole work (a seed part) while the process is asked to exit: its message goes back instead.
   */
  private abandonRetakes(): void {
    for (const loan of this.retaking.splice(0)) {
      loan.resume = undefined;
      loan.abandon?.(new WorkAbortedError());
      loan.abandon = undefined;
    }
  }

  /** Hands free slots to the handlers taking theirs back, in the order they asked. */
  private grantSlots(): void {
    while (this.retaking.length > 0 && this.slotsInUse() < this.options.concurrency) {
      const loan = this.retaking.shift();
      if (loan === undefined) break;
      this.returnLoan(loan);
    }
  }

  /** A handler that ended while its slot was lent (it failed while waiting) holds none: nothing to take back. */
  private endLoan(loan: SlotLoan): void {
    if (!loan.out) return;
    const queued = this.retaking.indexOf(loan);
    if (queued >= 0) this.retaking.splice(queued, 1);
    this.returnLoan(loan);
  }

  private returnLoan(loan: SlotLoan): void {
    loan.out = false;
    this.lent -= 1;
    loan.resume?.();
    loan.resume = undefined;
    loan.abandon = undefined;
  }

  /** Runs the handler while telling the server every ackWait/3 that the message is still being worked on. */
  private async runHandler(message: JsMsg, work: () => Promise<void>): Promise<Outcome> {
    const keepAlive = setInterval(() => this.safely(() => message.working(), 'extending the ack deadline'), Math.max(1, Math.floor(this.ackWaitMs / 3)));
    try {
      await work();
      return { ok: true };
    } catch (error) {
      return { ok: false, error };
    } finally {
      clearInterval(keepAlive);
    }
  }

  /**
   * Acknowledges and waits for the server to confirm. While NATS is unreachable or the consumer's leader is being
   * elected (a JetStream cluster that lost a node), the ack is sent again for up to ackWait: a lost ack costs a
   * redelivery after ackWait, and with it one of the message's deliveries. Acking twice is harmless.
   */
  private async acknowledge(message: JsMsg): Promise<void> {
    const startedAt = Date.now();
    for (let failures = 1; ; failures += 1) {
      if (this.connection.isClosed()) {
        // ackAck would wait out its whole timeout on a closed connection; the server redelivers anyway.
        this.report(new Error('connection closed before the message could be acknowledged'), 'acknowledging a message');
        return;
      }
      try {
        // nats.js sends an ack once per message (ackAck answers false after that): a repeat goes out as a plain request.
        const ackSubject = failures === 1 ? undefined : ackSubjectOf(message);
        if (ackSubject === undefined) await message.ackAck();
        else await this.connection.request(ackSubject, ACK_PAYLOAD, { timeout: ACK_REPEAT_TIMEOUT_MS });
        return;
      } catch (error) {
        const retry = isNatsOutage(error) && this.state === 'running' && Date.now() - startedAt < this.ackWaitMs;
        // The work is done but the server may not know: it redelivers after ackWait, and handlers are idempotent.
        if (!retry) return this.report(error, 'acknowledging a message');
        await new Promise((done) => setTimeout(done, retryDelayMs(failures, ACK_RETRY_BACKOFF, this.retryJitter)));
      }
    }
  }

  private async giveUp(message: JsMsg, payload: unknown, reason: string, detail?: string): Promise<void> {
    try {
      await this.options.onGiveUp?.(payload, reason, detail);
    } catch (error) {
      this.report(error, 'reporting a message given up');
      this.safely(() => message.nak(retryDelayMs(message.info.deliveryCount, this.retryBackoff, this.retryJitter)), 'requesting a redelivery');
      return;
    }
    // No reason text: servers before 2.11 do not recognise "+TERM <reason>" and would redeliver.
    this.safely(() => message.term(), 'terminating a message');
  }

  /** Resolves when a handler finishes or stop() is called, or after `timeoutMs`. Only the pull loop waits. */
  private nextChange(timeoutMs?: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        if (this.wakeUp === done) this.wakeUp = undefined;
        resolve();
      };
      const timer = timeoutMs === undefined ? undefined : setTimeout(done, timeoutMs);
      this.wakeUp = done;
    });
  }

  private notifyChange(): void {
    this.wakeUp?.();
  }

  private safely(action: () => void, activity: string): void {
    try {
      action();
    } catch (error) {
      this.report(error, activity);
    }
  }

  private report(error: unknown, activity: string): void {
    try {
      this.options.onError?.(error, `${this.options.durableName}: ${activity}`);
    } catch {
      // A failing error hook must not take the worker down.
    }
  }
}

/** The subject a JetStream message is acknowledged on: nats.js keeps it on the message, outside the JsMsg interface. */
function ackSubjectOf(message: JsMsg): string | undefined {
  const reply = (message as JsMsg & { reply?: unknown }).reply;
  return typeof reply === 'string' && reply.length > 0 ? reply : undefined;
}

function requirePositiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`PipelineWorker ${name} must be an integer >= 1, got ${value}`);
}
