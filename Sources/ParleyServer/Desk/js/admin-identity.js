// Admin: how the app proves who its users are (GET/PUT /v1/admin/apps/{app}/identity): its auth
// service, its JWKS URL for RS256/ES256 user tokens, HS256 tokens and identity hashes signed with
// the app's secret key, and whether anonymous visitors are refused. The server's 400 is shown as it
// is and changes nothing.
import { api } from "./api.js";
import { saveSettings, toolbar } from "./admin-ui.js";
import { h } from "./dom.js";
import { state } from "./store.js";

export async function renderIdentity(reload) {
  const path = `/v1/admin/apps/${state.me.app_id}/identity`;
  const settings = await api("GET", path);
  const error = h("p", { class: "form-error", id: "identity-error", role: "alert", hidden: true });
  const text = (id, label, value, { hint, ...attributes } = {}) => h("div", { class: "field" },
    h("label", { for: id }, label),
    h("input", { id, value: value ?? "", autocomplete: "off", "aria-describedby": hint ? `${id}-hint` : undefined, ...attributes }),
    hint ? h("span", { class: "field-hint", id: `${id}-hint` }, hint) : null);
  const check = (id, label, checked, hint) => h("div", { class: "field" },
    h("label", { class: "field-inline", for: id },
      h("input", { type: "checkbox", id, checked: Boolean(checked), "aria-describedby": `${id}-hint` }), label),
    h("span", { class: "field-hint", id: `${id}-hint` }, hint));

  const save = async () => {
    const read = (id) => document.getElementById(id).value.trim();
    const checked = (id) => document.getElementById(id).checked;
    const body = {
      auth_service_cache_seconds: Number.parseInt(read("identity-cache") || "300", 10),
      secret_key_tokens: checked("identity-hs256"),
      identity_hash: checked("identity-hash"),
      require_verification: checked("identity-required"),
    };
    if (read("identity-auth-url")) body.auth_service_url = read("identity-auth-url");
    if (read("identity-jwks-url")) body.jwks_url = read("identity-jwks-url");
    await saveSettings(path, body, error, "Identity settings saved.", reload);
  };

  return [
    toolbar("How your app proves who its users are. A verified user sees the same conversations on every device; "
      + "what came from a verified source is marked in the visitor panel."),
    h("div", { class: "card identity" },
      text("identity-auth-url", "Auth service URL", settings.auth_service_url,
        { type: "url", placeholder: "https://auth.example.com/parley", hint: "Parley POSTs app_id, user_id and security_key; 200 accepts, 400 or 403 refuses." }),
      text("identity-cache", "Remember a yes for (seconds)", String(settings.auth_service_cache_seconds ?? 300),
        { type: "number", min: 0, max: 86400, inputmode: "numeric", hint: "0 to 86400." }),
      text("identity-jwks-url", "JWKS URL", settings.jwks_url,
        { type: "url", placeholder: "https://example.com/.well-known/jwks.json", hint: "Public keys for RS256 and ES256 user tokens." }),
      check("identity-hs256", "Accept HS256 user tokens signed with the app's secret key", settings.secret_key_tokens,
        "Your backend signs a JWT with sub = the user id and aud = the app id."),
      check("identity-hash", "Accept identity hashes", settings.identity_hash,
        "HMAC-SHA256 of the user id with the app's secret key, in hex."),
      check("identity-required", "Require a verified user", settings.require_verification,
        "Anonymous visitors are refused."),
      error,
      h("div", { class: "row" }, h("button", { class: "button primary", type: "button", id: "identity-save", onclick: save }, "Save identity settings"))),
  ];
}
