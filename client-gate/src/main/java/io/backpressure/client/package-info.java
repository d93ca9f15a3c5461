/**
 * The SDK-neutral half of the gated LLM clients: who is calling ({@link
 * io.backpressure.client.GateContext}), which gate a model goes to ({@link
 * io.backpressure.client.ModelRoutes}), what a request costs ({@link
 * io.backpressure.client.CostModel}), and releasing the grant with the answer's usage, blocking or
 * streamed. A call the gate does not admit fails with a {@link
 * io.backpressure.client.NotAdmittedException}. The {@code backpressure-openai} and {@code
 * backpressure-anthropic} modules plug the official clients' HTTP layer into it.
 */
package io.backpressure.client;
