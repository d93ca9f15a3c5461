/**
 * The admission API and its in-memory reference state: ask a {@link io.backpressure.core.Gate}
 * before every call to a rate-limited provider, get an {@link io.backpressure.core.Admission}
 * (admitted, deferred with a retry-after and a booking, expired, or rejected), and release the
 * grant with what the call really used.
 *
 * <p>Start with {@link io.backpressure.core.Policy#builder(String)} and {@link
 * io.backpressure.core.InMemoryGate#create(io.backpressure.core.Policy)}; wrap a gate whose state
 * may be unreachable in a {@link io.backpressure.core.FailOpenGate}. Shared state across processes
 * is the {@code backpressure-redis} module; YAML policy files are {@code backpressure-policy-yaml}.
 * This module depends on SLF4J and JSpecify only. A value that may be absent is JSpecify
 * {@code @Nullable}; everything else is non-null.
 */
package io.backpressure.core;
