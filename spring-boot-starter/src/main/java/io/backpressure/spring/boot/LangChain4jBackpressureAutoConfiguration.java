package io.backpressure.spring.boot;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import io.backpressure.client.GateContext;
import io.backpressure.client.TokenEstimator;
import io.backpressure.langchain4j.GatedChatModel;
import io.backpressure.langchain4j.GatedStreamingChatModel;
import java.time.Duration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Wraps every LangChain4j {@link ChatModel} and {@link StreamingChatModel} bean in its gated
 * decorator over the default target's gate, when LangChain4j and {@code backpressure-langchain4j}
 * are on the class path; a deferred call waits up to {@code backpressure.max-wait} for its turn.
 * Off with {@code backpressure.langchain4j.decorate-models=false}. A wrapped bean is injectable as
 * {@code ChatModel} (no longer as its concrete class).
 */
@AutoConfiguration(after = BackpressureAutoConfiguration.class)
@ConditionalOnClass({GatedChatModel.class, ChatModel.class})
@ConditionalOnBean(BackpressureGates.class)
@ConditionalOnProperty(
    prefix = "backpressure.langchain4j",
    name = "decorate-models",
    matchIfMissing = true)
public class LangChain4jBackpressureAutoConfiguration {

  @Bean
  static BeanPostProcessor backpressureChatModelDecorator(
      ObjectProvider<BackpressureGates> gates,
      ObjectProvider<BackpressureProperties> properties,
      ObjectProvider<TokenEstimator> estimator) {
    return new BeanPostProcessor() {
      @Override
      public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof GatedChatModel || bean instanceof GatedStreamingChatModel) {
          return bean;
        }
        if (bean instanceof ChatModel model) {
          GatedChatModel.Builder builder =
              GatedChatModel.builder(model, gates.getObject().defaultGate())
                  .estimator(estimator.getIfAvailable(TokenEstimator::charsPerToken))
                  .activityMaxWait(properties.getObject().getActivityMaxWait());
          Duration maxWait = Contexts.maxWait(properties.getObject());
          if (maxWait != null) {
            builder.maxWait(maxWait);
          }
          GateContext context = Contexts.defaultContext(properties.getObject());
          return context == null ? builder.build() : builder.defaultContext(context).build();
        }
        if (bean instanceof StreamingChatModel model) {
          GatedStreamingChatModel.Builder builder =
              GatedStreamingChatModel.builder(model, gates.getObject().defaultGate())
                  .estimator(estimator.getIfAvailable(TokenEstimator::charsPerToken))
                  .activityMaxWait(properties.getObject().getActivityMaxWait());
          Duration maxWait = Contexts.maxWait(properties.getObject());
          if (maxWait != null) {
            builder.maxWait(maxWait);
          }
          GateContext context = Contexts.defaultContext(properties.getObject());
          return context == null ? builder.build() : builder.defaultContext(context).build();
        }
        return bean;
      }
    };
  }
}
