/**
 * The backend SPI: what a backend of the gate (the Redis module is one) uses so that it decides,
 * rejects and prints exactly as the in-memory gate does. {@link
 * io.backpressure.core.spi.RequestCheck} checks a request and resolves it into amounts, with the
 * same rejections and messages everywhere; {@link io.backpressure.core.spi.DerivedPolicy} derives
 * the numbers the admission rule decides with, once, so that no backend derives one of its own;
 * {@link io.backpressure.core.spi.LimitPlan} turns a call and the target's {@link
 * io.backpressure.core.Limits} into counters a backend can check without a policy or a time zone;
 * {@link io.backpressure.core.spi.EffectiveCaps} is the provider-feedback state machine; {@link
 * io.backpressure.core.spi.Redaction} masks a connection URL's credentials in everything a backend
 * prints.
 *
 * <p>Applications use {@code io.backpressure.core} and {@code io.backpressure.core.feedback} and
 * never need this package. It is supported for backend authors: each type's javadoc states its
 * contract, and every change to it is listed in the changelog; before 1.0 a minor release may
 * change it. A backend proves that it behaves like the in-memory gate by running the conformance
 * suite of {@code backpressure-core}'s test-jar.
 */
package io.backpressure.core.spi;
