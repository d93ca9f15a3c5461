/**
 * The official Anthropic Java client, gated at its HTTP layer: {@link
 * io.backpressure.anthropic.GatedAnthropic} builds a client whose every message is admitted before
 * it is sent and released with the usage of its answer, blocking or streamed, with input and output
 * tokens as separate dimensions.
 */
package io.backpressure.anthropic;
