# A character-level bigram language model: embeddings, cross entropy, sampling with multinomial.
import torch
import torch.nn as nn
import torch.nn.functional as F

text = "hello world, hello there. the world is wide."
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
itos = {i: c for c, i in stoi.items()}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
vocab = len(chars)
print(vocab, data.shape, data[:8].tolist())


class Bigram(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, idx):
        return self.head(self.emb(idx))


model = Bigram(vocab, 8)
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape).sin() * 0.5)
opt = torch.optim.AdamW(model.parameters(), lr=0.05)
xs, ys = data[:-1], data[1:]
for step in range(50):
    logits = model(xs)
    loss = F.cross_entropy(logits, ys)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}")

torch.manual_seed(0)
idx = torch.tensor([stoi["h"]])
out = []
for _ in range(20):
    probs = F.softmax(model(idx)[-1], dim=-1)
    nxt = torch.multinomial(probs, num_samples=1)
    out.append(itos[nxt.item()])
    idx = nxt
sample = "".join(out)
print(len(sample), all(c in chars for c in sample))
