/**
 * The mock provider: an HTTP server shaped like the providers' APIs (OpenAI, Azure OpenAI,
 * Anthropic, Gemini, Bedrock; {@code backpressure-mock-provider}) that enforces request and token
 * caps the way LLM providers do, and the rate-limit headers it writes ({@code
 * backpressure-mock-limits}, shared with the simulator). For tests and the evaluation, not for
 * production. The package spans both modules; this description is in the lower one.
 */
package io.backpressure.mock;
