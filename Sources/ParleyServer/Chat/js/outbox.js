// What the visitor sends waits here, in IndexedDB, until the server has it: written before anything
// goes on the wire, delivered by `client_message_id` (so a resend after a reload or a lost answer
// is answered as a duplicate, never stored twice), removed once the server answered. When IndexedDB
// is not available (some private modes), it lives in memory for the page's life.
const DB_NAME = "parley-chat";
const STORE = "outbox";

function open() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => {
      const store = request.result.createObjectStore(STORE, { keyPath: "client_message_id" });
      store.createIndex("conversation", "conversation_id");
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function done(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

export class Outbox {
  constructor() {
    this.memory = new Map();
    this.db = null;
    this.ready = (typeof indexedDB === "undefined" ? Promise.reject(new Error("no IndexedDB")) : open())
      .then((db) => { this.db = db; })
      .catch(() => { this.db = null; });
  }

  async store(mode) {
    await this.ready;
    return this.db ? this.db.transaction(STORE, mode).objectStore(STORE) : null;
  }

  /** Keeps an entry {client_message_id, conversation_id, text, created_at}; resolves once written. */
  async add(entry) {
    const store = await this.store("readwrite");
    if (!store) {
      this.memory.set(entry.client_message_id, entry);
      return;
    }
    await done(store.put(entry));
  }

  async remove(clientMessageID) {
    this.memory.delete(clientMessageID);
    const store = await this.store("readwrite");
    if (store) await done(store.delete(clientMessageID));
  }

  /** The entries of a conversation, oldest first. */
  async pending(conversationID) {
    const store = await this.store("readonly");
    const entries = store ? await done(store.index("conversation").getAll(conversationID)) : [...this.memory.values()].filter((e) => e.conversation_id === conversationID);
    return entries.sort((a, b) => a.created_at - b.created_at);
  }
}
