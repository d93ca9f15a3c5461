/**
 * Not API: what this project's backends and modules share so that they behave alike (the request
 * checks, the numbers derived from a policy, the provider-feedback state machine, the masking of
 * credentials). Applications use {@code io.backpressure.core} and {@code
 * io.backpressure.core.feedback}; everything here may change in any release without notice.
 */
package io.backpressure.core.internal;
