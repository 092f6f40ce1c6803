/**
 * The zlib dictionary of SPDY/3 header compression (draft-mbelshe-httpbis-spdy-00, section 2.6.10.1),
 * which both ends of a SPDY connection preset before the first header block: first 65 words, each
 * as a 4-byte big-endian length and its bytes, then a run of plain text. Kept here as the words and
 * the text, and assembled once; test/adapters/spdy/dictionary.test.ts pins the exact bytes by digest.
 */
const WORDS = [
  'options|head|post|put|delete|trace|accept|accept-charset|accept-encoding|accept-language',
  'accept-ranges|age|allow|authorization|cache-control|connection|content-base',
  'content-encoding|content-language|content-length|content-location|content-md5',
  'content-range|content-type|date|etag|expect|expires|from|host|if-match|if-modified-since',
  'if-none-match|if-range|if-unmodified-since|last-modified|location|max-forwards|pragma',
  'proxy-authenticate|proxy-authorization|range|referer|retry-after|server|te|trailer',
  'transfer-encoding|upgrade|user-agent|vary|via|warning|www-authenticate|method|get|status',
  '200 OK|version|HTTP/1.1|url|public|set-cookie|keep-alive|origin',
].join('|').split('|');

const TEXT = [
  '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505',
  '203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Una',
  'uthorized403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service',
  ' UnavailableJan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, ',
  'Fri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg,image/gif,application/xml,applicat',
  'ion/xhtml+xml,text/plain,text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf',
  '-8charset=iso-8859-1,utf-,*,enq=0.',
].join('');

function assemble(): Buffer {
  const parts: Buffer[] = [];
  for (const word of WORDS) {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(word.length);
    parts.push(length, Buffer.from(word, 'latin1'));
  }
  parts.push(Buffer.from(TEXT, 'latin1'));
  return Buffer.concat(parts);
}

export const SPDY3_DICTIONARY: Buffer = assemble();
