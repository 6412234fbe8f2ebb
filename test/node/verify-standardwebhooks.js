// Verifies webhook deliveries with the standardwebhooks package, as a
// receiver would. Input (stdin): a JSON array of
//   { secret, raw, headers: { webhook-id, webhook-timestamp, webhook-signature }, body: base64 }
// Output (stdout): a JSON array of { ok, error } in the same order.
"use strict";
const { Webhook } = require("standardwebhooks");

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const results = JSON.parse(input).map((c) => {
    try {
      const wh = c.raw ? new Webhook(c.secret, { format: "raw" }) : new Webhook(c.secret);
      wh.verify(Buffer.from(c.body, "base64"), c.headers);
      return { ok: true, error: "" };
    } catch (e) {
      return { ok: false, error: String(e && e.message) };
    }
  });
  process.stdout.write(JSON.stringify(results));
});
