/**
 * What the provider says back, and how the gate follows it: {@link
 * io.backpressure.core.feedback.ProviderSignals} reads an answer's status, rate-limit headers
 * (OpenAI's {@code x-ratelimit-*}, Anthropic's {@code anthropic-ratelimit-*}, {@code retry-after})
 * and 429 body into a {@link io.backpressure.core.feedback.ProviderSignal}; {@link
 * io.backpressure.core.feedback.FeedbackPolicy} says how fast the effective caps move toward what
 * the provider really enforces; {@link io.backpressure.core.feedback.FeedbackState} reports what
 * the gate has learned. Hand a signal to {@link
 * io.backpressure.core.Gate#feedback(io.backpressure.core.Grant,
 * io.backpressure.core.feedback.ProviderSignal)}.
 */
package io.backpressure.core.feedback;
