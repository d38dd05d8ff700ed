"""Mutant: backward forgets that the loss is a mean over the batch: it returns
g * (softmax(x) - onehot(t)) without dividing by N."""

import kael


class SoftmaxCrossEntropy(kael.autograd.Function):
    """loss = mean_i (logsumexp(x_i) - x_i[t_i]);  dx = g * (softmax(x) - onehot(t)) / N"""

    @staticmethod
    def forward(ctx, logits, target):
        shifted = logits - logits.max(dim=1, keepdim=True)[0]
        exp = shifted.exp()
        total = exp.sum(dim=1, keepdim=True)
        n = logits.shape[0]
        picked = shifted[kael.arange(n), target]
        ctx.save_for_backward(exp / total, target)
        return (total.log().reshape(n) - picked).mean()

    @staticmethod
    def backward(ctx, g):
        probs, target = ctx.saved_tensors
        n, c = probs.shape
        onehot = kael.eye(c, dtype=probs.dtype)[target]
        return g * (probs - onehot), None


def softmax_cross_entropy(logits, target):
    return SoftmaxCrossEntropy.apply(logits, target)
