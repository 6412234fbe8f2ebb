// A create/get/list round trip through a client generated from the CRM
// module's OpenAPI document: openapi-typescript wrote ./crm (the Go test
// generates it from the live document), openapi-fetch makes the calls,
// and tsc has checked this file against those types before it runs.
declare const process: { env: Record<string, string | undefined> };

import createClient from "openapi-fetch";
import type { paths } from "./crm.js";

const baseUrl = process.env.BASE_URL!;
const client = createClient<paths, "application/json">({ baseUrl, headers: { Authorization: `Bearer ${process.env.TOKEN}` } });
const email = process.env.EMAIL!;

const created = await client.POST("/consumers", {
  body: { email, first_name: "Ada", country: "HR", phone: "+38512345678" },
});
if (created.error || !created.data) throw new Error(`create: ${created.response.status} ${JSON.stringify(created.error)}`);
const id = created.data.payload._id;
if (!id) throw new Error("create: no _id");

const got = await client.GET("/consumers/{id}", { params: { path: { id } } });
if (got.error || !got.data) throw new Error(`get: ${got.response.status} ${JSON.stringify(got.error)}`);

const listed = await client.GET("/consumers", { params: { query: { email, limit: 10 } } });
if (listed.error || !listed.data) throw new Error(`list: ${listed.response.status} ${JSON.stringify(listed.error)}`);

console.log(JSON.stringify({
  createdStatus: created.response.status,
  id,
  got: { email: got.data.payload.email, country: got.data.payload.country, phone: got.data.payload.phone },
  listed: listed.data.payload.map((c) => c._id),
}));
