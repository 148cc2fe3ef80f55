import assert from "node:assert/strict";
import { formatCost } from "../../ui/format.ts";

Deno.test("formatCost(): small costs keep two significant digits and never use exponent notation", () => {
  assert.equal(formatCost(0), "$0");
  assert.equal(formatCost(null), "—");
  assert.equal(formatCost(0.0025), "$0.0025");
  assert.equal(formatCost(0.00333), "$0.0033");
  // A few tokens at a cheap model's price, and a chart axis's tiniest tick.
  assert.equal(formatCost(0.0000012), "$0.0000012");
  assert.equal(formatCost(1e-12), "$0.000000000001");
  assert.equal(formatCost(1.2), "$1.20");
});
