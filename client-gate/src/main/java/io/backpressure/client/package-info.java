/**
 * The SDK-neutral half of the gated LLM clients: who is calling ({@link
 * io.backpressure.client.GateContext}), which gate a model goes to ({@link
 * io.backpressure.client.ModelRoutes}), what a request costs ({@link
 * io.backpressure.client.CostModel}), and releasing the grant with the answer's usage, blocking or
 * streamed. A call the gate does not admit fails with a {@link
 * io.backpressure.client.NotAdmittedException}. The {@code backpressure-openai}, {@code
 * backpressure-anthropic}, {@code backpressure-gemini} and {@code backpressure-bedrock} modules
 * plug the official clients into it, each with its {@link io.backpressure.client.Dialect} and a
 * builder on {@link io.backpressure.client.GatedClientBuilder}.
 */
package io.backpressure.client;
