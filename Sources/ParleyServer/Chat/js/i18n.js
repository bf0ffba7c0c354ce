// The page's words in English and German. `t(key, values)` fills `{name}` placeholders; a key
// missing in a language falls back to English. Right-to-left languages flip the layout (the CSS
// uses logical properties only).
const STRINGS = {
  en: {
    title: "Chat with us",
    messages: "Messages",
    loading: "Loading…",
    close: "Close chat",
    start: "Start chat",
    send: "Send",
    sending: "Sending…",
    sent: "Sent",
    read: "Read",
    failed: "Not sent",
    retry: "Retry",
    composer_label: "Your message",
    composer_placeholder: "Write a message…",
    attach: "Attach a file",
    end_chat: "End chat",
    end_confirm: "End this chat?",
    end_yes: "End chat",
    cancel: "Cancel",
    cancel_wait: "Stop waiting",
    queued_title: "Waiting for an agent",
    queued_position: "You are number {position} in the queue.",
    queued_wait: "Estimated wait: {wait}.",
    queued_unknown: "We will be with you shortly.",
    minutes: "{n} min",
    under_a_minute: "less than a minute",
    agent_joined: "{name} joined the chat",
    agent_left: "{name} left the chat",
    an_agent: "An agent",
    typing: "{name} is typing…",
    requeued: "Waiting for another agent…",
    chat_ended: "The chat has ended.",
    you: "You",
    unavailable_closed: "We are closed right now.",
    unavailable_next: "We open again {when}.",
    unavailable_no_agent: "No agent is available right now.",
    unavailable_cancelled: "You left the queue.",
    unavailable_leave: "Leave us a message and we will get back to you.",
    offline_sent: "Thank you! We will get back to you.",
    submit: "Send",
    skip: "Skip",
    postchat_title: "How did we do?",
    ended_title: "Thanks for chatting with us",
    new_chat: "Start a new chat",
    transcript_email: "Email transcript",
    transcript_save: "Save transcript",
    transcript_print: "Print transcript",
    email_label: "Email address",
    email_sent: "The transcript is on its way to {email}.",
    email_unavailable: "Email is not available here.",
    error_title: "Something went wrong",
    error_retry: "Try again",
    error_network: "The connection failed. Check your network and try again.",
    error_app: "This chat is not available.",
    reconnecting: "Reconnecting…",
    offline_note: "You are offline. Messages will be sent when you are back online.",
    required_mark: "(required)",
    optional: "Choose…",
    rating_label: "{n} of 5",
    page_open: "Open",
    link_blocked: "This link cannot be opened here: {host}",
    viewer_close: "Close page",
    download: "Download",
    file_too_large: "That file is too large.",
    file_failed: "The file could not be sent.",
    unread: "{count} unread",
    form_failure: "Sending failed. Please try again.",
    welcome_from: "Welcome",
    errors: {
      required: "Please fill this in.",
      too_long: "This is too long.",
      not_single_line: "Please use one line.",
      invalid_characters: "This contains characters that are not allowed.",
      invalid_email: "Please enter a valid email address.",
      invalid_phone: "Please enter a valid phone number.",
      not_an_option: "Please choose one of the options.",
      out_of_range: "Please choose 1 to 5.",
      wrong_type: "This answer is not valid.",
      unknown_field: "This field is unknown.",
    },
  },
  de: {
    title: "Chatten Sie mit uns",
    messages: "Nachrichten",
    loading: "Wird geladen…",
    close: "Chat schließen",
    start: "Chat starten",
    send: "Senden",
    sending: "Wird gesendet…",
    sent: "Gesendet",
    read: "Gelesen",
    failed: "Nicht gesendet",
    retry: "Erneut senden",
    composer_label: "Ihre Nachricht",
    composer_placeholder: "Nachricht schreiben…",
    attach: "Datei anhängen",
    end_chat: "Chat beenden",
    end_confirm: "Diesen Chat beenden?",
    end_yes: "Chat beenden",
    cancel: "Abbrechen",
    cancel_wait: "Nicht mehr warten",
    queued_title: "Warten auf einen Mitarbeiter",
    queued_position: "Sie sind Nummer {position} in der Warteschlange.",
    queued_wait: "Geschätzte Wartezeit: {wait}.",
    queued_unknown: "Wir sind gleich für Sie da.",
    minutes: "{n} Min.",
    under_a_minute: "weniger als eine Minute",
    agent_joined: "{name} ist dem Chat beigetreten",
    agent_left: "{name} hat den Chat verlassen",
    an_agent: "Ein Mitarbeiter",
    typing: "{name} schreibt…",
    requeued: "Warten auf einen anderen Mitarbeiter…",
    chat_ended: "Der Chat ist beendet.",
    you: "Sie",
    unavailable_closed: "Wir haben gerade geschlossen.",
    unavailable_next: "Wir sind wieder da: {when}.",
    unavailable_no_agent: "Gerade ist kein Mitarbeiter erreichbar.",
    unavailable_cancelled: "Sie haben die Warteschlange verlassen.",
    unavailable_leave: "Hinterlassen Sie uns eine Nachricht, wir melden uns.",
    offline_sent: "Danke! Wir melden uns bei Ihnen.",
    submit: "Senden",
    skip: "Überspringen",
    postchat_title: "Wie waren wir?",
    ended_title: "Danke für Ihre Nachricht",
    new_chat: "Neuen Chat starten",
    transcript_email: "Verlauf per E-Mail",
    transcript_save: "Verlauf speichern",
    transcript_print: "Verlauf drucken",
    email_label: "E-Mail-Adresse",
    email_sent: "Der Verlauf ist unterwegs an {email}.",
    email_unavailable: "E-Mail ist hier nicht verfügbar.",
    error_title: "Etwas ist schiefgegangen",
    error_retry: "Erneut versuchen",
    error_network: "Die Verbindung ist fehlgeschlagen. Prüfen Sie Ihr Netz und versuchen Sie es erneut.",
    error_app: "Dieser Chat ist nicht verfügbar.",
    reconnecting: "Verbindung wird wiederhergestellt…",
    offline_note: "Sie sind offline. Nachrichten werden gesendet, sobald Sie wieder online sind.",
    required_mark: "(Pflichtfeld)",
    optional: "Bitte wählen…",
    rating_label: "{n} von 5",
    page_open: "Öffnen",
    link_blocked: "Dieser Link kann hier nicht geöffnet werden: {host}",
    viewer_close: "Seite schließen",
    download: "Herunterladen",
    file_too_large: "Diese Datei ist zu groß.",
    file_failed: "Die Datei konnte nicht gesendet werden.",
    unread: "{count} ungelesen",
    form_failure: "Senden fehlgeschlagen. Bitte erneut versuchen.",
    welcome_from: "Willkommen",
    errors: {
      required: "Bitte ausfüllen.",
      too_long: "Das ist zu lang.",
      not_single_line: "Bitte nur eine Zeile.",
      invalid_characters: "Das enthält unzulässige Zeichen.",
      invalid_email: "Bitte eine gültige E-Mail-Adresse eingeben.",
      invalid_phone: "Bitte eine gültige Telefonnummer eingeben.",
      not_an_option: "Bitte eine der Möglichkeiten wählen.",
      out_of_range: "Bitte 1 bis 5 wählen.",
      wrong_type: "Diese Antwort ist ungültig.",
      unknown_field: "Dieses Feld ist unbekannt.",
    },
  },
};

const RTL = new Set(["ar", "he", "fa", "ur", "yi", "ps", "sd", "ug", "dv"]);
let current = "en";
let tag = "en";

/** Sets the language from a BCP 47 tag (`de-AT` → German); unknown languages get English words. */
export function setLocale(locale) {
  tag = String(locale || "en");
  const language = tag.toLowerCase().split(/[-_]/)[0];
  current = STRINGS[language] ? language : "en";
  return { language: current, tag, dir: RTL.has(language) ? "rtl" : "ltr" };
}

export const locale = () => tag;
export const language = () => current;

/** The word for `key` with `{placeholders}` filled in. */
export function t(key, values = {}) {
  const path = key.split(".");
  const lookup = (table) => path.reduce((node, part) => (node && typeof node === "object" ? node[part] : undefined), table);
  const text = lookup(STRINGS[current]) ?? lookup(STRINGS.en) ?? key;
  return String(text).replace(/\{(\w+)\}/g, (_, name) => (values[name] ?? `{${name}}`));
}

/** A localized text map (`{"en": …, "de": …}`) in the current language, else English, else any. */
export function pick(localized) {
  if (!localized || typeof localized !== "object") return "";
  const full = tag.toLowerCase();
  for (const [key, value] of Object.entries(localized)) if (key.toLowerCase() === full) return value;
  return localized[current] ?? localized.en ?? Object.values(localized)[0] ?? "";
}
