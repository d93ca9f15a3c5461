/**
 * The official OpenAI Java client, gated at its HTTP layer: {@link
 * io.backpressure.openai.GatedOpenAI} builds a client whose every chat completion is admitted
 * before it is sent and released with the usage of its answer, blocking or streamed.
 */
package io.backpressure.openai;
