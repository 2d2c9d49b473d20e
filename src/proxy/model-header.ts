/**
 * The model name as it travels in X-Hub-Pool-Model, on the answer to the app and on a forward to
 * a peer. A header value is bytes, not text: Node refuses to send a character above U+00FF (it
 * throws ERR_INVALID_CHAR, which turned a peer holding a CJK-named model into "unreachable" and
 * the app's answer into a 502; found by the attack suite, issue 15), and Latin-1 bytes are read
 * differently by different clients. A name of printable ASCII goes as it is, which is every name
 * Ollama, vLLM and llama.cpp ship; any other name goes as percent-encoded UTF-8
 * (encodeURIComponent), the encoding RFC 8187 uses for non-ASCII header parameters.
 */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

export function modelHeaderValue(model: string): string {
  return PRINTABLE_ASCII.test(model) ? model : encodeURIComponent(model);
}
