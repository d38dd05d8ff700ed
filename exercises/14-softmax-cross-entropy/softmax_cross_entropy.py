"""Fused softmax + cross-entropy: one kael.autograd.Function whose backward is one formula.

    class F(kael.autograd.Function):
        @staticmethod
        def forward(ctx, a, b): ...        # runs with grad mode off; return the result
        @staticmethod
        def backward(ctx, g): ...          # one gradient per forward argument (None: none)
    ctx.save_for_backward(*tensors); ctx.saved_tensors; F.apply(a, b)
"""

import kael


class SoftmaxCrossEntropy(kael.autograd.Function):
    """loss = mean over the batch of -log softmax(x_i)[t_i], for logits [N, C], int64 targets [N]."""

    @staticmethod
    def forward(ctx, logits, target):
        raise NotImplementedError("implement forward: a stable log-sum-exp minus the target's logit, averaged; save what backward needs")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement backward: return (g * (softmax(x) - onehot(t)) / N, None)")


def softmax_cross_entropy(logits, target):
    """The mean cross-entropy of ``logits`` [N, C] against class indices ``target`` [N]."""
    return SoftmaxCrossEntropy.apply(logits, target)
