/**
 * {@code ./backpressure admin}: show a target's caps, weights and learned state in Redis,
 * hot-update one value, or replace the policy from a policy file — validated before anything is
 * written, and written atomically. The entry point is {@link io.backpressure.admin.AdminCommand}.
 */
package io.backpressure.admin;
