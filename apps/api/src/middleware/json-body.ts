import express, { type RequestHandler } from 'express';
import { AppError } from '@statusvane/shared';

export const BODY_LIMIT = '256kb';

/** JSON bodies only, 256 KiB at most. Malformed JSON reaches the error handler as invalid_request. */
export const jsonBody: RequestHandler = express.json({ limit: BODY_LIMIT, strict: true, type: ['application/json', 'application/*+json'] });

/** A write without a JSON body (wrong or missing Content-Type) is refused rather than read as `{}`. */
export const requireJson: RequestHandler = (req, _res, next) => {
  if (!req.is(['application/json', 'application/*+json'])) {
    throw new AppError('invalid_request', 'Send a JSON body with Content-Type: application/json');
  }
  next();
};
