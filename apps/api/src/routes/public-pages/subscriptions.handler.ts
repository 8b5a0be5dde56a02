import type { Request, RequestHandler, Response } from 'express';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError, SubscriberQueue, ValidationError } from '@statusvane/shared';
import { checkSubscriptionLink } from '../../services/subscribers/check-subscription-link.js';
import { confirmSubscription } from '../../services/subscribers/confirm-subscription.js';
import { subscribe } from '../../services/subscribers/subscribe.js';
import {
  addressHash,
  parseSubscribeInput,
  type SubscribeInput,
} from '../../services/subscribers/subscription-input.js';
import { unsubscribe } from '../../services/subscribers/unsubscribe.js';
import { openPage, type PageRouteOptions } from './page-context.js';
import {
  renderLinkAction,
  renderMessage,
  renderSubscribed,
  renderSubscribeForm,
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
  async function within(l: RateLimiterRedis, key: string, res: Response): Promise<true | RateLimiterRes> {
    try {
      await l.consume(key, 1);
      return true;
    } catch (err) {
      if (err instanceof RateLimiterRes) return err;
      deps.logger.warn('subscribe limiter unavailable', {
        requestId: res.locals.requestId,
        error: (err as Error)?.message,
      });
      return true;
    }
  }

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
    let input: SubscribeInput;
    try {
      input = parseSubscribeInput(req.body);
    } catch (err) {
      if (json || !(err instanceof ValidationError)) throw err;
      // A form the browser let through but we refuse (`x@y`): the form again, the reason beside the field.
      const issues = (err.details as { issues?: Array<{ path: string; message: string }> }).issues ?? [];
      const typed = (req.body as Record<string, unknown> | undefined)?.email;
      const email = typeof typed === 'string' ? typed.slice(0, 320) : '';
      const error = issues.find((i) => i.path === 'email')?.message ?? 'Enter an email address.';
      res
        .status(400)
        .type('html')
        .send(renderSubscribeForm(ctx.page, ctx.basePath, await publicAssets(), { email, error }));
      return;
    }
    if (input.email !== undefined) {
      const allowed = (await within(perEmail, addressHash('email', input.email), res)) === true;
      if (allowed) {
        const result = await subscribe(
          { prisma: deps.prisma, keyring: deps.config.encryption, guard: deps.guard },
          { ctx, input },
        );
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
    const result = await subscribe(
      { prisma: deps.prisma, keyring: deps.config.encryption, guard: deps.guard },
      { ctx, input },
    );
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
    subscribe: subscribeHandler,
    confirmForm: linkHandler('confirm', 'GET'),
    confirm: linkHandler('confirm', 'POST'),
    unsubscribeForm: linkHandler('unsubscribe', 'GET'),
    unsubscribe: linkHandler('unsubscribe', 'POST'),
  };
}
