import type { Request, RequestHandler, Response } from 'express';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { AppError, SubscriberQueue, ValidationError } from '@statusvane/shared';
import { consumeOrPass } from '../../middleware/rate-limit.js';
import { checkSubscriptionLink } from '../../services/subscribers/check-subscription-link.js';
import { confirmSubscription } from '../../services/subscribers/confirm-subscription.js';
import { subscribe } from '../../services/subscribers/subscribe.js';
import { addressHash, parseSubscribeInput } from '../../services/subscribers/subscription-input.js';
import { unsubscribe } from '../../services/subscribers/unsubscribe.js';
import { mastheadOf, openPage, type PageContext, type PageRouteOptions } from './page-context.js';
import {
  renderLinkAction,
  renderMessage,
  renderSubscribed,
  renderSubscribePage,
  type ComponentChoice,
  type SubscribeFormState,
} from '../../views/status-page/page-forms.js';
import { publicAssets, setPageHeaders, wantsJson } from './respond.js';

/** Subscription requests per page and client address per hour (like the login cap). */
export const SUBSCRIBE_PER_IP_PER_HOUR = 20;
/** Confirmation mails per email address per hour (all pages). Beyond: 202 as usual, nothing sent. */
export const SUBSCRIBE_PER_EMAIL_PER_HOUR = 3;

/** The answer to every accepted email subscription, whatever happened: it never tells what was known. */
const EMAIL_ACCEPTED = {
  status: 'pending_confirmation',
  message: 'If this address can receive mail, a confirmation link is on its way. Nothing is sent until it is used.',
} as const;

export function subscriptionHandlers(opts: PageRouteOptions) {
  const { deps } = opts;
  const limiter = (keyPrefix: string, points: number) =>
    new RateLimiterRedis({ storeClient: deps.redis, points, duration: 3600, keyPrefix, useRedisPackage: false });
  const perIp = limiter('sv:subscribe-ip', SUBSCRIBE_PER_IP_PER_HOUR);
  const perEmail = limiter('sv:subscribe-email', SUBSCRIBE_PER_EMAIL_PER_HOUR);
  let queue = deps.subscribers;
  const subscriberQueue = () => (queue ??= new SubscriberQueue(deps.redis, deps.config.queuePrefix));

  /** true: within the limit (or the limiter is down: logged, not held against the visitor). */
  const within = (l: RateLimiterRedis, key: string, res: Response) =>
    consumeOrPass(l, key, { logger: deps.logger, what: 'subscribe', requestId: res.locals.requestId });

  /** The page's components as the subscribe form offers them (the page's sections, from its cached data). */
  async function choiceOf(ctx: PageContext): Promise<ComponentChoice> {
    const { data } = await opts.pages.load(ctx.page, ctx.now);
    const byId = new Map(data.components.map((c) => [c.id, c]));
    return data.sections.map((s) => ({
      name: s.name,
      components: s.componentIds.map((id) => ({ id, name: byId.get(id)!.name })),
    }));
  }

  /**
   * A form the browser let through but we refuse (`x@y`, a webhook URL the guard refuses, a component not on the
   * page): the subscribe page again (400), the reason beside the field, what was typed and ticked kept.
   */
  async function formAgain(req: Request, res: Response, ctx: PageContext, err: ValidationError): Promise<void> {
    const issues = (err.details as { issues?: Array<{ path: string; message: string }> }).issues ?? [];
    const body = (req.body ?? {}) as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === 'string' ? v.slice(0, 2048) : '');
    const kind = text(body.webhookUrl) !== '' && text(body.email) === '' ? 'webhook' : 'email';
    const field = kind === 'email' ? 'email' : 'webhookUrl';
    const ticked = ([] as unknown[]).concat(body.componentIds ?? []).filter((v): v is string => typeof v === 'string');
    const fieldIssue = issues.find((i) => i.path === field);
    const boxIssue = issues.find((i) => i.path.startsWith('componentIds'));
    const other = issues.find((i) => i !== fieldIssue && i !== boxIssue);
    const state: SubscribeFormState = {
      kind,
      value: text(body[field]),
      componentIds: ticked,
      error: fieldIssue?.message ?? (other ? other.message : boxIssue ? undefined : 'Check this field.'),
      componentsError: boxIssue && 'Choose among the components listed here.',
    };
    res
      .status(400)
      .type('html')
      .send(renderSubscribePage(mastheadOf(ctx), await publicAssets(), await choiceOf(ctx), state));
  }

  /** GET <page>/subscribe: the subscribe page, by email or webhook, for every component or the ones chosen. */
  const subscribePageHandler: RequestHandler = async (req, res) => {
    const ctx = await openPage(req, res, opts, 'form');
    if (!ctx) return;
    res.type('html').send(renderSubscribePage(mastheadOf(ctx), await publicAssets(), await choiceOf(ctx)));
  };

  const subscribeHandler: RequestHandler = async (req, res) => {
    const json = wantsJson(req) || !req.is('application/x-www-form-urlencoded');
    if (json) res.setHeader('Access-Control-Allow-Origin', '*');
    const ctx = await openPage(req, res, opts, json ? 'json' : 'form');
    if (!ctx) return;
    res.setHeader('Cache-Control', 'no-store');
    const ip = await within(perIp, `${ctx.page.id}:${req.ip ?? 'unknown'}`, res);
    if (ip !== true) {
      res.setHeader('Retry-After', String(Math.max(1, Math.ceil(ip.msBeforeNext / 1000))));
      if (json)
        res.status(429).json(new AppError('rate_limited', 'Too many subscription requests; try later').toEnvelope());
      else
        res
          .status(429)
          .type('html')
          .send(
            renderMessage(
              'Too many requests',
              'Too many subscription requests. Try again later.',
              await publicAssets(),
            ),
          );
      return;
    }
    /** What `run` gives, or null once a refused form post has been answered with the form again. */
    const orFormAgain = async <T>(run: () => Promise<T>): Promise<T | null> => {
      try {
        return await run();
      } catch (err) {
        // A malformed value, a URL the guard refuses, a component not on the page: JSON gets the API's 400.
        if (json || !(err instanceof ValidationError)) throw err;
        await formAgain(req, res, ctx, err);
        return null;
      }
    };
    const input = await orFormAgain(async () => parseSubscribeInput(req.body));
    if (!input) return;
    const subscribed = () =>
      orFormAgain(() =>
        subscribe({ prisma: deps.prisma, keyring: deps.config.encryption, guard: deps.guard }, { ctx, input }),
      );
    if (input.email !== undefined) {
      const allowed = (await within(perEmail, addressHash('email', input.email), res)) === true;
      if (allowed) {
        const result = await subscribed();
        if (!result) return;
        if (result.kind === 'email' && result.confirmDeliveryId) {
          // If Redis is down the delivery stays pending and the worker's sweep enqueues it.
          await subscriberQueue()
            .enqueue([result.confirmDeliveryId])
            .catch((err: Error) =>
              deps.logger.warn('subscriber enqueue failed', { requestId: res.locals.requestId, error: err.message }),
            );
        }
      }
      if (json) res.status(202).json({ data: { kind: 'email', ...EMAIL_ACCEPTED } });
      else
        res
          .status(202)
          .type('html')
          .send(renderSubscribed(ctx.page, ctx.basePath, await publicAssets(), null));
      return;
    }
    const result = await subscribed();
    if (!result) return;
    if (result.kind !== 'webhook') throw new Error('unreachable');
    const data = { kind: 'webhook', id: result.id, secret: result.secret, componentIds: result.componentIds };
    if (json) res.status(202).json({ data });
    else
      res
        .status(202)
        .type('html')
        .send(renderSubscribed(ctx.page, ctx.basePath, await publicAssets(), result.secret));
  };

  /**
   * The links in mails: GET shows a button (mail scanners that open links must not confirm or unsubscribe), POST
   * does it (also RFC 8058 one-click unsubscribe). An unknown, used or expired token is one 404 page.
   */
  const linkHandler =
    (action: 'confirm' | 'unsubscribe', method: 'GET' | 'POST'): RequestHandler =>
    async (req: Request, res: Response) => {
      setPageHeaders(res);
      res.setHeader('Cache-Control', 'no-store');
      const ctx = await openPage(req, res, { ...opts, skipPassword: true }, 'form');
      if (!ctx) return;
      const token = String(req.params.token);
      const live =
        method === 'GET'
          ? await checkSubscriptionLink(deps, { ctx, input: { action, token } })
          : action === 'confirm'
            ? await confirmSubscription(deps, { ctx, input: { token } })
            : await unsubscribe(deps, { ctx, input: { token } });
      if (!live) {
        res
          .status(404)
          .type('html')
          .send(renderMessage('Link not valid', 'This link has expired or was already used.', await publicAssets()));
        return;
      }
      res
        .type('html')
        .send(
          renderLinkAction(
            ctx.page,
            `${ctx.basePath}/subscriptions/${token}/${action}`,
            action,
            method === 'POST',
            await publicAssets(),
          ),
        );
    };

  return {
    subscribePage: subscribePageHandler,
    subscribe: subscribeHandler,
    confirmForm: linkHandler('confirm', 'GET'),
    confirm: linkHandler('confirm', 'POST'),
    unsubscribeForm: linkHandler('unsubscribe', 'GET'),
    unsubscribe: linkHandler('unsubscribe', 'POST'),
  };
}
