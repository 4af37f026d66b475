// Talks to the agent: JSON over fetch, the bearer token from sessionStorage (never in a URL),
// and every refusal turned into a sentence a person can act on.

const TOKEN_KEY = 'hostprobe.token';

export class ApiError extends Error {
  constructor(status, serverMessage, retryAfter) {
    super(explain(status, serverMessage, retryAfter));
    this.status = status;
    this.serverMessage = serverMessage;
  }
}

export function explain(status, serverMessage, retryAfter) {
  const detail = serverMessage ? `: ${serverMessage}` : '';
  switch (status) {
    case 400: return `The agent refused the request (400 Bad Request)${detail}`;
    case 401: return `The agent needs a valid bearer token to answer (401 Unauthorized)${detail}`;
    case 403: return `The agent does not allow this (403 Forbidden)${detail}`;
    case 404: return `Not found (404)${detail}`;
    case 409: return `Not possible in the run's present state (409 Conflict)${detail}`;
    case 413: return `The request is larger than the agent accepts (413 Payload Too Large)${detail}`;
    case 415: return `The agent takes only an uncompressed JSON body (415)${detail}`;
    case 429: return `The agent is busy or this address started too many runs (429 Too Many Requests)${detail}` +
      (retryAfter ? `; try again in ${retryAfter} s` : '');
    case 0: return `The agent did not answer${detail}`;
    default: return `The agent answered ${status}${detail}`;
  }
}

export function savedToken() {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function saveToken(token) {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function forgetToken() {
  sessionStorage.removeItem(TOKEN_KEY);
}

// A 401 calls this (set by the token prompt) so that the page asks for the token once.
let onUnauthorized = () => {};
export function whenUnauthorized(handler) {
  onUnauthorized = handler;
}

export async function request(method, path, body) {
  const headers = { Accept: 'application/json' };
  const token = savedToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      // Run listings carry an ETag: the browser asks "still this?" and the agent answers 304
      // without printing the list again. Everything else is fresh each time.
      cache: method === 'GET' && path.startsWith('/v1/runs?') ? 'no-cache' : 'no-store',
    });
  } catch (failure) {
    throw new ApiError(0, String(failure.message || failure));
  }
  let payload = null;
  try {
    payload = await response.json();
  } catch {
    payload = null;
  }
  if (!response.ok) {
    const message = payload && typeof payload.error === 'string' ? payload.error : response.statusText;
    const error = new ApiError(response.status, message, response.headers.get('Retry-After'));
    // Only an answer to the token in use now: the page's first requests go out together, and
    // a late 401 to a token already replaced must not make the page forget the new one.
    if (response.status === 401 && savedToken() === token) onUnauthorized(error, Boolean(token));
    throw error;
  }
  return payload;
}

export const get = (path) => request('GET', path);
