/**
 * Email addresses: what is one (RFC 5321 and, for addresses in any script, RFC 6531) and when two are
 * the same address (API.md 5.5). Pure: no I/O, no AWS.
 *
 * - Syntax: `local@domain`. The local part is dot-separated atoms of RFC 5322's `atext` or any
 *   visible non-ASCII character (RFC 6531's UTF8-non-ascii; no control, format, separator or
 *   default-ignorable character), at most 64 octets in UTF-8. The domain is a host name in any script
 *   whose IDNA (punycode) form is valid: labels of letters, digits and hyphens of at most 63 octets,
 *   at least two labels, a top-level label that is not all digits, at most 253 octets.
 * - Comparison: the address trimmed and in Unicode NFC, the local part lower-cased and the domain in
 *   its IDNA form, so `JOSÉ@Bücher.de`, `josé@bücher.de` and `josé@xn--bcher-kva.de` are one address.
 */
import { domainToASCII } from 'node:url';

const ATOM = String.raw`(?:[A-Za-z0-9!#$%&'*+/=?^_\x60{|}~-]|(?!\p{Default_Ignorable_Code_Point})[^\p{ASCII}\p{C}\p{Z}])+`;
const LOCAL_PART = new RegExp(`^${ATOM}(?:\\.${ATOM})*$`, 'u');
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const MAX_LOCAL_OCTETS = 64;
const MAX_DOMAIN_OCTETS = 253;

const partsOf = (address: string) => {
  const at = address.lastIndexOf('@');
  return { local: address.slice(0, at), domain: address.slice(at + 1), at };
};

/** The domain's IDNA (ASCII) form, or undefined when it is not a valid host name. */
const asciiDomain = (domain: string): string | undefined => {
  const ascii = domainToASCII(domain);
  const labels = ascii.split('.');
  const valid =
    ascii.length > 0 &&
    ascii.length <= MAX_DOMAIN_OCTETS &&
    labels.length >= 2 &&
    labels.every((label) => LABEL.test(label)) &&
    !/^\d+$/.test(labels[labels.length - 1] ?? '');
  return valid ? ascii : undefined;
};

/** Is this (already trimmed) text an email address by the rules above? */
export const isEmailAddress = (address: string): boolean => {
  const { local, domain, at } = partsOf(address);
  return (
    at > 0 &&
    LOCAL_PART.test(local) &&
    Buffer.byteLength(local) <= MAX_LOCAL_OCTETS &&
    asciiDomain(domain) !== undefined
  );
};

/** The form two addresses are compared in: equal forms are one address (API.md 5.5). */
export const normaliseEmail = (email: string): string => {
  const { local, domain } = partsOf(email.trim().normalize('NFC'));
  return `${local.toLowerCase()}@${asciiDomain(domain) ?? domain.toLowerCase()}`;
};
