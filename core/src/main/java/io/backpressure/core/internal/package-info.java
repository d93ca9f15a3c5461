/**
 * Not API: what this project's backends share (the request checks, the numbers derived from a
 * policy) so that the in-memory and the Redis gate decide alike. Applications use {@code
 * io.backpressure.core}; everything here may change in any release without notice.
 */
package io.backpressure.core.internal;
