import { parse } from "yaml";
import bcrypt from "bcryptjs";
import { parseYamlOrJson } from "/work/wt/hardening/src/sources/manifest/parse.ts";
const h = "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi";
for (const n of [5000, 50000]) {
  const text = "basic_auth_users:\n" + Array.from({length:n},(_,i)=>`  user${i}: '${h}'`).join("\n") + "\n";
  let t=performance.now(); parseYamlOrJson(Buffer.from(text)); console.log(n, "linear", (performance.now()-t).toFixed(0));
  if (n===5000) { t=performance.now(); parse(text,{maxAliasCount:100}); console.log(n, "yaml.parse", (performance.now()-t).toFixed(0)); }
}
for (const cost of [10, 12]) {
  const hash = bcrypt.hashSync("pw", cost);
  let t=performance.now(); bcrypt.compareSync("pw", hash); console.log("cost", cost, (performance.now()-t).toFixed(0), "ms");
}
const fake = "$2y$12$" + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456".slice(0,53);
let t=performance.now(); console.log(bcrypt.compareSync("pw", fake), (performance.now()-t).toFixed(0));
