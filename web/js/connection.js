// The /inspect WebSocket: requests matched to replies by id, pushes handed to listeners, and a
// reconnect with backoff that tells the page to re-subscribe and resync.

const SUBPROTOCOL = 'rewind.inspect.v1';
// `rewind serve --max-message`'s default. The server does not announce its limit, so a server
// started with a smaller one is caught by its close code (1009) instead.
const MAX_MESSAGE = 16 * 1024 * 1024;

export class Connection {
  constructor(url) {
    this.url = url;
    this.nextId = 1;
    this.pending = new Map();       // id → {resolve, reject}
    this.listeners = new Map();     // push type → [fn]
    this.status = 'connecting';
    this.backoff = 500;
    this.socket = null;
    this.onStatus = () => {};
    this.onOpen = () => {};
    this.maxMessage = MAX_MESSAGE;
  }

  /// The size in bytes (UTF-8) of `body` as a request would send it.
  sizeOf(body) {
    return new Blob([JSON.stringify({ ...body, id: this.nextId })]).size;
  }

  on(type, fn) {
    if (!this.listeners.has(type)) this.listeners.set(type, []);
    this.listeners.get(type).push(fn);
  }

  open() {
    this.setStatus(this.status === 'open' ? 'reconnecting' : this.status);
    const socket = new WebSocket(this.url, SUBPROTOCOL);
    this.socket = socket;
    socket.onopen = () => {
      this.backoff = 500;
      this.setStatus('open');
      this.onOpen();
    };
    socket.onmessage = (message) => this.receive(message.data);
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      const why = event.code === 1009
        ? 'the server closed the connection because a message was over its size limit (rewind serve --max-message)'
        : 'the connection closed';
      for (const { reject } of this.pending.values()) reject(new Error(why));
      this.pending.clear();
      this.setStatus('reconnecting');
      // Backoff doubles up to 10 s; a jitter keeps several tabs from reconnecting in step.
      const delay = this.backoff * (0.75 + Math.random() * 0.5);
      this.backoff = Math.min(this.backoff * 2, 10000);
      setTimeout(() => this.open(), delay);
    };
  }

  setStatus(status) {
    this.status = status;
    this.onStatus(status);
  }

  receive(text) {
    let message;
    try { message = JSON.parse(text); } catch { return; }
    if (message.id !== undefined && message.id !== null && this.pending.has(message.id)) {
      const { resolve, reject } = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.type === 'error') reject(new RequestError(message)); else resolve(message);
      return;
    }
    for (const fn of this.listeners.get(message.type) || []) fn(message);
  }

  /// Sends a request and resolves with its reply (an `error` reply rejects).
  request(body) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
      return Promise.reject(new Error('not connected'));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ ...body, id }));
    });
  }
}

export class RequestError extends Error {
  constructor(reply) {
    super(reply.message || reply.code);
    this.code = reply.code;
  }
}
