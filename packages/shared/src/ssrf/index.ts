/**
 * SSRF guard for monitor and webhook targets. See address.ts for the policy and guard.ts for how
 * to use it at write time (API) and at connect time (workers).
 */
export {
  type AddressVerdict,
  type BlockedClass,
  type Cidr,
  type NormalisedHost,
  cidrContains,
  classifyAddress,
  isAddressAllowed,
  isLocalhostName,
  isValidPort,
  normaliseHost,
  parseCidr,
  parseCidrList,
  parseHostPort,
} from './address.js';
export {
  type SsrfCheckResult,
  type SsrfGuard,
  type SsrfGuardOptions,
  type SsrfLookupFunction,
  type SsrfResolver,
  SsrfBlockedError,
  WRITE_TIME_DNS_TIMEOUT_MS,
  createSsrfGuard,
} from './guard.js';
