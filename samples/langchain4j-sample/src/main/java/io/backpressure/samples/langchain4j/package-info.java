/** A LangChain4j application whose model calls share one provider's limits through the gate. */
package io.backpressure.samples.langchain4j;
