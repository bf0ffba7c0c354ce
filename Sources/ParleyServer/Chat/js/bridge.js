// The bridge to the host: the iOS app (WKWebView), the Android app (WebView) or the website that
// embeds the page in an iframe. Page → host events are envelopes {"parley":1,"event":…}; host → page
// calls arrive at window.Parley.receive({"parley":1,"call":…}). ParleyKit's ChatBridge decodes and
// encodes exactly these (fixtures: Tests/ParleyKitTests/Fixtures/ChatBridge/). Cisco ECE's mobile
// template names work as aliases, sent only to hosts that registered them (docs/chat-page.md).

// Cisco's names for our events: iOS message handlers (with what they are posted) and Android methods.
const CISCO_IOS = {
  chat_started: [["IOSChatStarted", (e) => e.conversation_id], ["IOSSetSessionId", (e) => e.conversation_id]],
  chat_closed: [["IOSChatClosed", () => ""]],
  chat_ended: [["IOSChatEnded", () => ""]],
  customer_data_requested: [["IOSGetCustomerData", () => ""]],
  save_transcript: [["IOSSaveTranscript", (e) => e.html]],
  print_transcript: [["IOSPrintTranscript", (e) => e.html]],
  download_attachment: [["IOSDownloadAttachment", (e) => e.url]],
};
const CISCO_ANDROID = {
  chat_started: [["onChatStarted"], ["setSid", (e) => e.conversation_id]],
  chat_closed: [["onChatClosed"]],
  chat_ended: [["onChatEnded"]],
  save_transcript: [["saveTranscript", (e) => e.html]],
  print_transcript: [["printTranscript", (e) => e.html]],
};

export class Bridge {
  /**
   * @param options.embedderOrigin  the origin of the website that frames the page (embed), or null
   * @param options.onCall(call)    a host call, checked to be {parley: 1, call: string}
   */
  constructor({ embedderOrigin, onCall }) {
    this.embedderOrigin = embedderOrigin;
    this.onCall = onCall;
    const handlers = window.webkit?.messageHandlers;
    this.ios = handlers?.parley ?? null;
    this.iosHandlers = handlers ?? null;
    this.android = window.ParleyAndroid && typeof window.ParleyAndroid.postMessage === "function" ? window.ParleyAndroid : null;
    this.androidCisco = window.AndroidInterface ?? null;
    this.framed = Boolean(embedderOrigin) && window.parent !== window;
  }

  /** True when someone is listening: a native host or an embedding website. */
  get hasHost() {
    return Boolean(this.ios || this.android || this.framed || this.hasCiscoHost);
  }

  get hasCiscoHost() {
    return Boolean(this.androidCisco || (this.iosHandlers && Object.values(CISCO_IOS).flat().some(([name]) => this.iosHandlers[name])));
  }

  /** Installs window.Parley.receive, Cisco's window.MobileInterface and the iframe listener. */
  install() {
    const receive = (call) => {
      let value = call;
      if (typeof value === "string") {
        try {
          value = JSON.parse(value);
        } catch {
          return false;
        }
      }
      if (!value || typeof value !== "object" || value.parley !== 1 || typeof value.call !== "string") return false;
      this.onCall(value);
      return true;
    };
    Object.defineProperty(window, "Parley", { value: Object.freeze({ receive }), configurable: false, writable: false });
    Object.defineProperty(window, "MobileInterface", {
      value: Object.freeze({
        CloseChat: () => receive({ parley: 1, call: "close_chat" }),
        ShowCloseButton: (visible) => receive({ parley: 1, call: "show_close_button", visible: visible === true || visible === "true" }),
        OnCustomerDataReceived: (data) => receive({ parley: 1, call: "customer_data", ...parseCustomerData(data) }),
      }),
      configurable: false, writable: false,
    });
    if (this.framed) {
      window.addEventListener("message", (event) => {
        if (event.source !== window.parent || event.origin !== this.embedderOrigin) return;
        receive(event.data);
      });
    }
  }

  /** Sends an event to the host on every channel it has, with Cisco's aliases where registered. */
  send(event, fields = {}) {
    const envelope = { parley: 1, event, ...fields };
    try {
      this.ios?.postMessage(envelope);
    } catch { /* a host that went away */ }
    try {
      this.android?.postMessage(JSON.stringify(envelope));
    } catch { /* idem */ }
    if (this.framed) window.parent.postMessage(envelope, this.embedderOrigin);
    for (const [name, body] of CISCO_IOS[event] ?? []) {
      const handler = this.iosHandlers?.[name];
      if (handler && handler !== this.ios) {
        try {
          handler.postMessage(body(envelope));
        } catch { /* idem */ }
      }
    }
    let returned;
    for (const [name, argument] of CISCO_ANDROID[event] ?? []) {
      const method = this.androidCisco?.[name];
      if (typeof method === "function") {
        try {
          returned = argument ? method.call(this.androidCisco, argument(envelope)) : method.call(this.androidCisco);
        } catch { /* idem */ }
      }
    }
    return returned;
  }

  /**
   * Asks the host for customer data. Cisco's Android interface answers synchronously
   * (`getCustomerData()` returns JSON); the others answer with a `customer_data` call later.
   */
  requestCustomerData() {
    this.send("customer_data_requested");
    if (typeof this.androidCisco?.getCustomerData === "function") {
      try {
        const data = parseCustomerData(this.androidCisco.getCustomerData());
        return data;
      } catch {
        return null;
      }
    }
    return null;
  }
}

/** Customer data from a JSON string or an object: {name?, email?, attributes?, user_token?, user_id?}. */
export function parseCustomerData(data) {
  let value = data;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return {};
    }
  }
  if (!value || typeof value !== "object") return {};
  const result = {};
  for (const key of ["name", "email", "user_token", "user_id"]) if (typeof value[key] === "string" && value[key]) result[key] = value[key];
  if (value.attributes && typeof value.attributes === "object") {
    result.attributes = Object.fromEntries(Object.entries(value.attributes).filter(([, v]) => typeof v === "string"));
  }
  return result;
}
