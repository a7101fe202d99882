"""A second batch of whole programs as tutorials and courses write them, run under minigrad and torch.

The shape is tests/test_compat_programs.py's: each program is written once against the PyTorch
API (as a function of the library and its `nn`, `optim` and `utils.data` modules), starts from
the same weights in both libraries and sees the same data, and `check_both` asserts that the two
runs print the same text and return the same values to float rounding. Where a program draws
random numbers (dropout, sampling, shuffling, noise), the compared run turns the draw off (dropout
p=0, the noise scaled by zero, greedy actions) and a separate check looks at what the draw does:
its statistics, and that `manual_seed` makes a run repeatable within one library.

Each test also runs on CUDA when a device (or the emulated one) is there: the program's tensors
and model are moved with `.to(device)` under minigrad, torch stays on the CPU.
"""
import copy
import math
import os
import random

import numpy as np
import pytest

import minigrad
from conftest import DEVICES
from test_compat import same
from test_compat_programs import _run, _torch, check_both, error, init_from_numpy  # noqa: F401

device = pytest.fixture(params=DEVICES)(lambda request: request.param)


def check_on(device, program, *args, rtol=1e-5, atol=1e-6):
    """check_both with minigrad on `device` (torch on the CPU); minigrad's (text, result)."""
    if device == "cpu":
        return check_both(program, "cpu", *args, rtol=rtol, atol=atol)
    text, result = _run(program, minigrad, (device,) + args)
    mine = text.replace(", device='cuda:0'", ""), result
    torch = _torch()
    if torch is not None:
        theirs = _run(program, torch, ("cpu",) + args)
        assert mine[0] == theirs[0]
        same(_to_cpu(mine[1]), theirs[1], rtol, atol)
    return mine


def _to_cpu(value):
    if hasattr(value, "detach"):
        return value.detach().cpu()
    if isinstance(value, dict):
        return {k: _to_cpu(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_cpu(v) for v in value)
    return value


def init_layers(torch, layers, seed=1, scale=0.3):
    """init_from_numpy for some layers only (the norms keep their ones and zeros)."""
    for i, layer in enumerate(layers):
        init_from_numpy(torch, layer, seed + i, scale)


# --- 1. a small CNN over a DataLoader: BatchNorm, MaxPool, Dropout, OneCycleLR / ReduceLROnPlateau --

IMG_RNG = np.random.default_rng(5)
IMG_Y = np.arange(64) % 2
IMAGES = IMG_RNG.normal(scale=0.6, size=(64, 1, 16, 16)).astype(np.float32)
IMAGES[IMG_Y == 0, 0, 6:10, :] += 0.8   # class 0: a horizontal bar
IMAGES[IMG_Y == 1, 0, :, 6:10] += 0.8   # class 1: a vertical bar
IMG_Y = IMG_Y.astype(np.int64)


def _cnn(torch, nn, optim, data, device, schedule, p):
    class ConvNet(nn.Module):
        def __init__(self, num_classes=2):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(1, 4, kernel_size=3, padding=1), nn.BatchNorm2d(4), nn.ReLU(inplace=True),
                nn.MaxPool2d(2),
                nn.Conv2d(4, 8, kernel_size=3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
                nn.MaxPool2d(kernel_size=2, stride=2))
            self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(p), nn.Linear(8 * 4 * 4, num_classes))

        def forward(self, x):
            return self.classifier(self.features(x))

    model = ConvNet()
    init_layers(torch, [model.features[0], model.features[4], model.classifier[2]], scale=0.2)
    model = model.to(device)
    print(model)
    images, labels = torch.from_numpy(IMAGES), torch.from_numpy(IMG_Y)
    train_loader = data.DataLoader(data.TensorDataset(images[:48], labels[:48]), batch_size=16)
    test_loader = data.DataLoader(data.TensorDataset(images[48:], labels[48:]), batch_size=8)
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    epochs = 3 if schedule == "onecycle" else 6
    if schedule == "onecycle":
        scheduler = optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=epochs,
                                                  steps_per_epoch=len(train_loader))
    else:
        scheduler = optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=0)
    history = []
    for epoch in range(epochs):
        model.train()
        running_loss = 0.0
        for i, (inputs, targets) in enumerate(train_loader):
            inputs, targets = inputs.to(device), targets.to(device)
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = criterion(outputs, targets)
            loss.backward()
            optimizer.step()
            if schedule == "onecycle":
                scheduler.step()
            running_loss += loss.item()
        model.eval()
        correct, total, val_loss = 0, 0, 0.0
        with torch.no_grad():
            for inputs, targets in test_loader:
                inputs, targets = inputs.to(device), targets.to(device)
                outputs = model(inputs)
                val_loss += criterion(outputs, targets).item() * targets.size(0)
                _, predicted = torch.max(outputs.data, 1)
                total += targets.size(0)
                correct += (predicted == targets).sum().item()
        val_loss /= total
        if schedule == "plateau":
            scheduler.step(val_loss)
        lr = optimizer.param_groups[0]["lr"]
        print(f"Epoch [{epoch + 1}/{epochs}], Loss: {running_loss / len(train_loader):.4f}, "
              f"Val: {val_loss:.4f}, Accuracy: {100 * correct / total:.2f}%, lr {lr:.5f}")
        history.append((running_loss / len(train_loader), val_loss, correct, lr))
    bn = model.features[1]
    print(bn.num_batches_tracked, bn.momentum, bn.running_mean.shape)
    return history, model.state_dict()


@pytest.mark.parametrize("schedule", ["onecycle", "plateau"])
def test_cnn_with_batchnorm_maxpool_and_a_scheduler(device, schedule):
    text, (history, state) = check_on(device, _cnn, schedule, 0.0, rtol=1e-4, atol=1e-5)
    assert "(1): BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)" in text
    assert "(3): MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)" in text
    assert f"tensor({3 * len(history)}) 0.1 torch.Size([4])" in text  # 3 batches an epoch
    assert history[-1][0] < 0.2 * history[0][0] and history[-1][2] >= 14
    if schedule == "plateau":  # halved after each epoch whose validation loss did not improve
        assert [h[3] for h in history] == [0.05, 0.05, 0.05, 0.05, 0.025, 0.0125]
    else:
        assert history[0][3] > 0.08 and history[-1][3] < 0.01
    assert list(state)[:7] == ["features.0.weight", "features.0.bias", "features.1.weight",
                               "features.1.bias", "features.1.running_mean", "features.1.running_var",
                               "features.1.num_batches_tracked"]


def test_cnn_dropout_trains_and_evaluates_deterministically():
    """With dropout on, training draws masks (the libraries' streams differ); the eval pass does
    not, and the same seed gives the same run."""
    minigrad.manual_seed(0)
    _, (h1, s1) = _run(_cnn, minigrad, ("cpu", "onecycle", 0.5))
    minigrad.manual_seed(0)
    _, (h2, s2) = _run(_cnn, minigrad, ("cpu", "onecycle", 0.5))
    _, (h3, _) = _run(_cnn, minigrad, ("cpu", "onecycle", 0.5))
    assert h1 == h2 and h1 != h3
    same(list(s1.values()), list(s2.values()), 0, 0)
    _, (h0, _) = _run(_cnn, minigrad, ("cpu", "onecycle", 0.0))
    assert h1[0][0] != h0[0][0] and h1[-1][2] >= 12


# --- 2. a character-level LSTM language model: truncated BPTT, clipping, sampling ---------------

CORPUS = "hello world. hello minigrad. the cat sat on the mat. " * 4


def _char_lstm(torch, nn, optim, data, device, temperature):
    F = nn.functional
    chars = sorted(set(CORPUS))
    stoi = {ch: i for i, ch in enumerate(chars)}
    itos = {i: ch for ch, i in stoi.items()}
    encoded = torch.tensor([stoi[c] for c in CORPUS], dtype=torch.long)
    print(len(chars), encoded.shape, encoded.dtype, encoded[:6])

    class CharRNN(nn.Module):
        def __init__(self, vocab_size, hidden_size=16, num_layers=2):
            super().__init__()
            self.embed = nn.Embedding(vocab_size, hidden_size)
            self.lstm = nn.LSTM(hidden_size, hidden_size, num_layers, batch_first=True)
            self.fc = nn.Linear(hidden_size, vocab_size)
            self.fc.weight = self.embed.weight  # weight tying

        def forward(self, x, hidden=None):
            out, hidden = self.lstm(self.embed(x), hidden)
            return self.fc(out), hidden

    model = init_from_numpy(torch, CharRNN(len(chars)), scale=0.3).to(device)
    print(model, sum(p.numel() for p in model.parameters()))
    optimizer = optim.Adam(model.parameters(), lr=0.03)
    batch_size, seq_len = 4, 10
    n = (len(encoded) - 1) // batch_size
    inputs = encoded[: n * batch_size].view(batch_size, n).to(device)
    targets = encoded[1: n * batch_size + 1].view(batch_size, n).to(device)
    losses = []
    for epoch in range(8):
        hidden = None
        for i in range(0, n - seq_len + 1, seq_len):
            x, y = inputs[:, i:i + seq_len], targets[:, i:i + seq_len]
            if hidden is not None:
                hidden = tuple(h.detach() for h in hidden)
            logits, hidden = model(x, hidden)
            loss = F.cross_entropy(logits.reshape(-1, len(chars)), y.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
            losses.append(loss.item())
        print(f"epoch {epoch} loss {loss.item():.4f} grad norm {norm.item():.4f} "
              f"ppl {math.exp(loss.item()):.2f}", hidden[0].shape, hidden[0].requires_grad)

    model.eval()
    with torch.no_grad():
        idx = torch.tensor([[stoi["h"]]], device=device)
        hidden, generated, first_probs = None, "h", None
        for _ in range(20):
            logits, hidden = model(idx, hidden)
            probs = F.softmax(logits[:, -1, :] / temperature, dim=-1)
            if first_probs is None:
                first_probs = probs
            idx = torch.multinomial(probs, num_samples=1)
            generated += itos[idx.item()]
    print(repr(generated) if temperature < 0.01 else len(generated))
    return losses, first_probs, generated, model.state_dict()


def test_char_lstm_with_truncated_bptt_clipping_and_greedy_sampling(device):
    """At temperature 0.001 the softmax is one-hot to float precision: multinomial then picks the
    argmax in both libraries, so the generated text is compared too."""
    text, (losses, _, generated, state) = check_on(device, _char_lstm, 0.001, rtol=1e-4, atol=1e-5)
    assert "torch.Size([212]) torch.int64 tensor([" in text
    assert "(lstm): LSTM(16, 16, num_layers=2, batch_first=True)" in text
    assert "torch.Size([2, 4, 16]) True" in text
    assert losses[-1] < 0.6 * losses[0]
    assert list(state) == ["embed.weight", "lstm.weight_ih_l0", "lstm.weight_hh_l0", "lstm.bias_ih_l0",
                           "lstm.bias_hh_l0", "lstm.weight_ih_l1", "lstm.weight_hh_l1",
                           "lstm.bias_ih_l1", "lstm.bias_hh_l1", "fc.weight", "fc.bias"]
    same(state["fc.weight"], state["embed.weight"].cpu(), 0, 0)  # tied: one tensor, one update


def test_char_lstm_sampling_at_temperature_one():
    """Sampling at T=1 draws from the model's distribution: the first probabilities match torch's,
    the text is made of the corpus's characters, and a seed repeats it."""
    minigrad.manual_seed(3)
    _, (losses, probs, gen1, _) = _run(_char_lstm, minigrad, ("cpu", 1.0))
    minigrad.manual_seed(3)
    _, (_, _, gen2, _) = _run(_char_lstm, minigrad, ("cpu", 1.0))
    assert gen1 == gen2 and len(gen1) == 21 and set(gen1) <= set(CORPUS)
    assert float(probs.sum()) == pytest.approx(1.0, abs=1e-5)
    torch = _torch()
    if torch is not None:
        _, (t_losses, t_probs, _, _) = _run(_char_lstm, torch, ("cpu", 1.0))
        same([losses, probs], [t_losses, t_probs], 1e-4, 1e-5)


# --- 3. a GRU encoder-decoder with attention (bmm, softmax, cat) and teacher forcing ------------

SOS, EOS = 0, 1
SEQ_RNG = np.random.default_rng(7)
SOURCES = SEQ_RNG.integers(2, 8, size=(32, 5))  # task: emit the source reversed, then EOS


def _seq2seq(torch, nn, optim, data, device, teacher_forcing_ratio):
    F = nn.functional
    vocab, hidden_size = 8, 16

    class EncoderRNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(vocab, hidden_size)
            self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)

        def forward(self, src):
            return self.gru(self.embedding(src))

    class AttnDecoderRNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(vocab, hidden_size)
            self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
            self.out = nn.Linear(hidden_size, vocab)

        def forward_step(self, token, hidden, encoder_outputs):
            embedded = self.embedding(token)                                   # (B, 1, H)
            query = hidden.permute(1, 2, 0)                                   # (B, H, 1)
            scores = torch.bmm(encoder_outputs, query).squeeze(2)             # (B, S)
            weights = F.softmax(scores, dim=1)
            context = torch.bmm(weights.unsqueeze(1), encoder_outputs)        # (B, 1, H)
            output, hidden = self.gru(torch.cat((embedded, context), dim=2), hidden)
            return self.out(output), hidden, weights

        def forward(self, encoder_outputs, hidden, max_len, target=None, ratio=0.0):
            batch = encoder_outputs.size(0)
            token = torch.empty(batch, 1, dtype=torch.long, device=encoder_outputs.device).fill_(SOS)
            outputs, attentions = [], []
            for t in range(max_len):
                logits, hidden, weights = self.forward_step(token, hidden, encoder_outputs)
                outputs.append(logits)
                attentions.append(weights)
                if target is not None and random.random() < ratio:
                    token = target[:, t].unsqueeze(1)       # teacher forcing
                else:
                    _, topi = logits.topk(1)
                    token = topi.squeeze(-1).detach()       # its own prediction
            return F.log_softmax(torch.cat(outputs, dim=1), dim=-1), hidden, torch.stack(attentions, 1)

    random.seed(0)  # the teacher-forcing coin is Python's: the same in both libraries
    encoder = init_from_numpy(torch, EncoderRNN(), 1, 0.3).to(device)
    decoder = init_from_numpy(torch, AttnDecoderRNN(), 2, 0.3).to(device)
    src = torch.from_numpy(SOURCES).to(device)
    tgt = torch.cat([src.flip(1), torch.full((len(src), 1), EOS, dtype=torch.long, device=device)], 1)
    loader = data.DataLoader(data.TensorDataset(src, tgt), batch_size=8)
    enc_opt = optim.Adam(encoder.parameters(), lr=0.01)
    dec_opt = optim.Adam(decoder.parameters(), lr=0.01)
    criterion = nn.NLLLoss()
    losses = []
    for epoch in range(6):
        total = 0
        for source, target in loader:
            enc_opt.zero_grad()
            dec_opt.zero_grad()
            encoder_outputs, encoder_hidden = encoder(source)
            log_probs, _, _ = decoder(encoder_outputs, encoder_hidden, target.size(1), target,
                                      teacher_forcing_ratio)
            loss = criterion(log_probs.view(-1, log_probs.size(-1)), target.view(-1))
            loss.backward()
            enc_opt.step()
            dec_opt.step()
            total += loss.item()
        losses.append(total / len(loader))
        print(f"epoch {epoch + 1} loss {losses[-1]:.4f}")
    with torch.no_grad():
        encoder_outputs, encoder_hidden = encoder(src[:4])
        log_probs, _, attn = decoder(encoder_outputs, encoder_hidden, 6)
        decoded = log_probs.argmax(-1)
    print(decoded.shape, attn.shape, attn.sum(-1).allclose(torch.ones(4, 6, device=device)))
    token_acc = (decoded == tgt[:4]).float().mean().item()
    return losses, decoded, attn, token_acc, list(decoder.parameters())


@pytest.mark.parametrize("ratio", [1.0, 0.5])
def test_gru_seq2seq_with_attention_and_teacher_forcing(device, ratio):
    text, (losses, decoded, attn, acc, _) = check_on(device, _seq2seq, ratio, rtol=1e-4, atol=1e-5)
    assert "torch.Size([4, 6]) torch.Size([4, 6, 5]) True" in text
    assert losses[-1] < 0.7 * losses[0]


# --- 4. a Transformer encoder classifier: positional-encoding buffer, padding mask, AdamW warm-up --

TOK_RNG = np.random.default_rng(11)
TOKENS = TOK_RNG.integers(1, 10, size=(48, 8))
LENGTHS = TOK_RNG.integers(3, 9, size=48)
for _row, _n in zip(TOKENS, LENGTHS):
    _row[_n:] = 0                                                   # 0 pads
TOK_LABELS = ((TOKENS == 7).sum(1) > (TOKENS == 3).sum(1)).astype(np.int64)


def _transformer(torch, nn, optim, data, device):
    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, dropout=0.0, max_len=64):
            super().__init__()
            self.dropout = nn.Dropout(p=dropout)
            position = torch.arange(max_len).unsqueeze(1)
            div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
            pe = torch.zeros(max_len, 1, d_model)
            pe[:, 0, 0::2] = torch.sin(position * div_term)
            pe[:, 0, 1::2] = torch.cos(position * div_term)
            self.register_buffer("pe", pe.transpose(0, 1))

        def forward(self, x):
            return self.dropout(x + self.pe[:, :x.size(1)])

    class TransformerClassifier(nn.Module):
        def __init__(self, ntoken=10, d_model=16, nhead=2, d_hid=32, nlayers=2, num_classes=2):
            super().__init__()
            self.d_model = d_model
            self.embedding = nn.Embedding(ntoken, d_model, padding_idx=0)
            self.pos_encoder = PositionalEncoding(d_model)
            layer = nn.TransformerEncoderLayer(d_model, nhead, d_hid, dropout=0.0, batch_first=True)
            self.transformer_encoder = nn.TransformerEncoder(layer, nlayers, enable_nested_tensor=False)
            self.classifier = nn.Linear(d_model, num_classes)

        def forward(self, src, src_key_padding_mask):
            x = self.embedding(src) * math.sqrt(self.d_model)
            x = self.transformer_encoder(self.pos_encoder(x), src_key_padding_mask=src_key_padding_mask)
            keep = (~src_key_padding_mask).unsqueeze(-1).float()
            pooled = (x * keep).sum(1) / keep.sum(1)                   # mean over the real tokens
            return self.classifier(pooled)

    model = TransformerClassifier()
    init_from_numpy(torch, model, 3, 0.2)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.fill_(1.0 if name.endswith("weight") else 0.0)
    model = model.to(device)
    print([name for name, _ in model.named_buffers()], model.pos_encoder.pe.shape)
    print(model.transformer_encoder.layers[0])
    no_decay = ["bias", "norm"]
    groups = [
        {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)],
         "weight_decay": 0.01},
        {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)],
         "weight_decay": 0.0}]
    optimizer = optim.AdamW(groups, lr=5e-3)
    warmup = 4
    scheduler = optim.lr_scheduler.LambdaLR(optimizer, lambda step: min((step + 1) / warmup, 1.0))
    tokens, labels = torch.from_numpy(TOKENS), torch.from_numpy(TOK_LABELS)
    loader = data.DataLoader(data.TensorDataset(tokens, labels), batch_size=12)
    criterion = nn.CrossEntropyLoss()
    losses, lrs = [], []
    for epoch in range(4):
        model.train()
        for src, y in loader:
            src, y = src.to(device), y.to(device)
            mask = src == 0
            loss = criterion(model(src, mask), y)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
            lrs.append(scheduler.get_last_lr()[0])
        print(f"epoch {epoch} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.5f}")
    model.eval()
    with torch.no_grad():
        src = tokens.to(device)
        logits = model(src, src == 0)
        acc = (logits.argmax(-1) == labels.to(device)).float().mean().item()
        hidden = model.transformer_encoder(model.pos_encoder(model.embedding(src[:2]) * 4.0),
                                           src_key_padding_mask=src[:2] == 0)
    print(f"accuracy {acc:.3f}", len(optimizer.param_groups[1]["params"]))
    # the key projection's bias adds the same score to every key: its gradient is rounding noise,
    # which Adam scales up to steps of lr in either library; the compared state leaves it out
    state = model.state_dict()
    for name in [k for k in state if k.endswith("in_proj_bias")]:
        bias = state.pop(name)
        state[name + "[q, v]"] = torch.cat([bias[:16], bias[32:]])
    return losses, lrs, logits, hidden, state


def test_transformer_encoder_classifier_with_padding_mask_and_warmup(device):
    text, (losses, lrs, _, _, state) = check_on(device, _transformer, rtol=1e-4, atol=1e-5)
    assert "['pos_encoder.pe'] torch.Size([1, 64, 16])" in text
    assert "TransformerEncoderLayer(\n  (self_attn): MultiheadAttention(" in text
    assert lrs[:4] == pytest.approx([2.5e-3, 3.75e-3, 5e-3, 5e-3])
    assert "pos_encoder.pe" in state and np.mean(losses[-4:]) < np.mean(losses[:4])


def test_transformer_padding_does_not_change_the_prediction():
    """A key_padding_mask hides the pads: more padding, the same logits."""
    torch, nn = minigrad, minigrad.nn
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
    x = torch.randn(1, 3, 8)
    padded = torch.cat([x, torch.randn(1, 4, 8)], 1)
    mask = torch.tensor([[False] * 3 + [True] * 4])
    out = enc(padded, src_key_padding_mask=mask)
    np.testing.assert_allclose(out[:, :3].detach().numpy(), enc(x).detach().numpy(), rtol=1e-5, atol=1e-5)


# --- 5. a VAE: reparameterization with randn_like, BCE + KL, sigmoid output ----------------------

VAE_RNG = np.random.default_rng(13)
_protos = (VAE_RNG.random((3, 16)) > 0.5).astype(np.float32)
VAE_X = np.clip(_protos[VAE_RNG.integers(0, 3, 48)] + VAE_RNG.normal(scale=0.1, size=(48, 16)), 0, 1).astype(np.float32)


def _vae(torch, nn, optim, data, device, noise):
    F = nn.functional

    class VAE(nn.Module):
        def __init__(self, input_dim=16, hidden_dim=12, latent_dim=2):
            super().__init__()
            self.fc1 = nn.Linear(input_dim, hidden_dim)
            self.fc21 = nn.Linear(hidden_dim, latent_dim)
            self.fc22 = nn.Linear(hidden_dim, latent_dim)
            self.fc3 = nn.Linear(latent_dim, hidden_dim)
            self.fc4 = nn.Linear(hidden_dim, input_dim)

        def encode(self, x):
            h1 = F.relu(self.fc1(x))
            return self.fc21(h1), self.fc22(h1)

        def reparameterize(self, mu, logvar):
            std = torch.exp(0.5 * logvar)
            eps = torch.randn_like(std) * noise
            return mu + eps * std

        def decode(self, z):
            h3 = F.relu(self.fc3(z))
            return torch.sigmoid(self.fc4(h3))

        def forward(self, x):
            mu, logvar = self.encode(x.view(-1, 16))
            z = self.reparameterize(mu, logvar)
            return self.decode(z), mu, logvar

    def loss_function(recon_x, x, mu, logvar):
        BCE = F.binary_cross_entropy(recon_x, x.view(-1, 16), reduction="sum")
        KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        return BCE + KLD, KLD

    model = init_from_numpy(torch, VAE(), 4, 0.3).to(device)
    optimizer = optim.Adam(model.parameters(), lr=2e-2)
    train_loader = data.DataLoader(data.TensorDataset(torch.from_numpy(VAE_X)), batch_size=16)
    history = []
    for epoch in range(1, 11):
        model.train()
        train_loss, kl_total = 0, 0
        for batch_idx, (x,) in enumerate(train_loader):
            x = x.to(device)
            optimizer.zero_grad()
            recon_batch, mu, logvar = model(x)
            loss, kld = loss_function(recon_batch, x, mu, logvar)
            loss.backward()
            train_loss += loss.item()
            kl_total += kld.item()
            optimizer.step()
        history.append((train_loss / len(train_loader.dataset), kl_total / len(train_loader.dataset)))
        print("====> Epoch: {} Average loss: {:.4f} KL {:.4f}".format(epoch, *history[-1]))
    model.eval()
    with torch.no_grad():
        z = torch.zeros(4, 2, device=device)
        z[:, 0] = torch.linspace(-2, 2, 4)
        sample = model.decode(z)
        recon, mu, logvar = model(torch.from_numpy(VAE_X[:4]).to(device))
    print(sample.shape, bool(((sample > 0) & (sample < 1)).all()))
    return history, sample, recon, mu, logvar


def test_vae_with_bce_and_kl(device):
    """The compared run scales the noise by zero (z = mu, still through randn_like)."""
    text, (history, sample, *_rest) = check_on(device, _vae, 0.0, rtol=1e-4, atol=1e-5)
    assert "torch.Size([4, 16]) True" in text
    assert history[-1][0] < 0.7 * history[0][0]


def test_vae_reparameterization_noise():
    """With the noise on, z = mu + eps * std with eps ~ N(0, 1): the loss still falls, the same
    seed repeats the run, and randn_like's draws have the standard normal's moments."""
    minigrad.manual_seed(1)
    _, (h1, *_r1) = _run(_vae, minigrad, ("cpu", 1.0))
    minigrad.manual_seed(1)
    _, (h2, *_r2) = _run(_vae, minigrad, ("cpu", 1.0))
    _, (h0, *_r0) = _run(_vae, minigrad, ("cpu", 0.0))
    assert h1 == h2 and h1 != h0 and h1[-1][0] < 0.8 * h1[0][0]
    eps = minigrad.randn_like(minigrad.zeros(200, 100, dtype=minigrad.float64))
    assert eps.dtype == minigrad.float64 and abs(eps.mean().item()) < 0.02
    assert eps.std().item() == pytest.approx(1.0, abs=0.02)


# --- 6. a tiny GAN: BCEWithLogitsLoss, two optimizers, detach() for the discriminator step -------

GAN_RNG = np.random.default_rng(17)
GAN_REAL = (GAN_RNG.normal(size=(6, 32, 1)) * 0.5 + 3.0).astype(np.float32)
GAN_NOISE = GAN_RNG.normal(size=(6, 32, 4)).astype(np.float32)


def _tiny_gan(torch, nn, optim, data, device):
    nz = 4
    netG = nn.Sequential(nn.Linear(nz, 16), nn.ReLU(True), nn.Linear(16, 1))
    netD = nn.Sequential(nn.Linear(1, 16), nn.LeakyReLU(0.2, inplace=True), nn.Linear(16, 1))
    init_from_numpy(torch, netG, 5, 0.4)
    init_from_numpy(torch, netD, 6, 0.4)
    netG, netD = netG.to(device), netD.to(device)
    criterion = nn.BCEWithLogitsLoss()
    real_label, fake_label = 0.9, 0.0  # one-sided label smoothing
    optimizerD = optim.Adam(netD.parameters(), lr=5e-3, betas=(0.5, 0.999))
    optimizerG = optim.Adam(netG.parameters(), lr=5e-3, betas=(0.5, 0.999))
    G_losses, D_losses = [], []
    for epoch in range(2):
        for i in range(len(GAN_REAL)):
            # (1) update D: maximize log(D(x)) + log(1 - D(G(z)))
            netD.zero_grad()
            real = torch.from_numpy(GAN_REAL[i]).to(device)
            b_size = real.size(0)
            label = torch.full((b_size,), real_label, dtype=torch.float, device=device)
            output = netD(real).view(-1)
            errD_real = criterion(output, label)
            errD_real.backward()
            D_x = torch.sigmoid(output).mean().item()
            noise = torch.from_numpy(GAN_NOISE[i]).to(device)
            fake = netG(noise)
            label.fill_(fake_label)
            output = netD(fake.detach()).view(-1)
            errD_fake = criterion(output, label)
            errD_fake.backward()
            errD = errD_real + errD_fake
            optimizerD.step()
            # (2) update G: maximize log(D(G(z)))
            netG.zero_grad()
            label.fill_(1.0)
            output = netD(fake).view(-1)
            errG = criterion(output, label)
            errG.backward()
            optimizerG.step()
            G_losses.append(errG.item())
            D_losses.append(errD.item())
            if i % 3 == 0:
                print("[%d/%d][%d/%d]\tLoss_D: %.4f\tLoss_G: %.4f\tD(x): %.4f"
                      % (epoch, 2, i, len(GAN_REAL), errD.item(), errG.item(), D_x))
    with torch.no_grad():
        samples = netG(torch.from_numpy(GAN_NOISE[0]).to(device))
    print(f"fake mean {samples.mean().item():.3f}")
    return G_losses, D_losses, samples, list(netG.parameters()) + list(netD.parameters())


def test_tiny_gan_with_bce_with_logits_and_detach(device):
    text, (g, d, samples, _) = check_on(device, _tiny_gan, rtol=1e-4, atol=1e-5)
    assert "[0/2][0/6]\tLoss_D: " in text and text.count("Loss_G") == 4
    assert len(g) == len(d) == 12


# --- 7. REINFORCE on a hand-written corridor: Categorical, log_prob, normalised returns ----------

class Corridor:
    """Start in cell 0 of 5; action 1 steps right, 0 left; reaching cell 4 pays 1, a step costs 0.05."""
    n = 5

    def reset(self):
        self.pos, self.t = 0, 0
        return self._obs()

    def _obs(self):
        obs = np.zeros(self.n, dtype=np.float32)
        obs[self.pos] = 1.0
        return obs

    def step(self, action):
        self.pos = min(max(self.pos + (1 if action == 1 else -1), 0), self.n - 1)
        self.t += 1
        done = self.pos == self.n - 1 or self.t >= 12
        return self._obs(), (1.0 if self.pos == self.n - 1 else -0.05), done


def _reinforce(torch, nn, optim, data, device, explore):
    from importlib import import_module
    Categorical = import_module(torch.__name__ + ".distributions").Categorical
    F = nn.functional

    class Policy(nn.Module):
        def __init__(self):
            super().__init__()
            self.affine1 = nn.Linear(5, 16)
            self.affine2 = nn.Linear(16, 2)
            self.saved_log_probs, self.rewards = [], []

        def forward(self, x):
            return F.softmax(self.affine2(F.relu(self.affine1(x))), dim=1)

    policy = init_from_numpy(torch, Policy(), 8, 0.3).to(device)
    optimizer = optim.Adam(policy.parameters(), lr=2e-2)
    eps = np.finfo(np.float32).eps.item()
    gamma, env, lengths, losses, entropies = 0.9, Corridor(), [], [], []
    random.seed(1)
    for episode in range(30):
        state, ep_reward = env.reset(), 0
        for t in range(1, 20):
            state_t = torch.from_numpy(state).float().unsqueeze(0).to(device)
            probs = policy(state_t)
            m = Categorical(probs)
            if explore == "sample":
                action = m.sample()
            elif random.random() < 0.3:  # epsilon-greedy with Python's coin: the same in both libraries
                action = torch.tensor([random.randrange(2)], device=device)
            else:
                action = probs.argmax(1)
            policy.saved_log_probs.append(m.log_prob(action))
            entropies.append(m.entropy().item())
            state, reward, done = env.step(action.item())
            policy.rewards.append(reward)
            ep_reward += reward
            if done:
                break
        R, returns = 0, []
        for r in policy.rewards[::-1]:
            R = r + gamma * R
            returns.insert(0, R)
        returns = torch.tensor(returns, device=device)
        if len(returns) > 1:
            returns = (returns - returns.mean()) / (returns.std() + eps)
        policy_loss = []
        for log_prob, R in zip(policy.saved_log_probs, returns):
            policy_loss.append(-log_prob * R)
        optimizer.zero_grad()
        policy_loss = torch.cat(policy_loss).sum()
        policy_loss.backward()
        optimizer.step()
        del policy.rewards[:]
        del policy.saved_log_probs[:]
        lengths.append(t)
        losses.append(policy_loss.item())
        if explore != "sample" and episode % 6 == 0:
            print(f"Episode {episode}\tLength: {t}\tReward: {ep_reward:.2f}\tLoss: {policy_loss.item():.4f}")
    print(m, m.probs.shape, m.logits.dtype, m.batch_shape, m.event_shape)
    return lengths, losses, entropies, list(policy.parameters())


def test_reinforce_with_categorical_and_normalised_returns(device):
    """The compared run acts epsilon-greedily with Python's random, so both libraries walk the same
    episodes."""
    text, (lengths, losses, entropies, _) = check_on(device, _reinforce, "epsilon", rtol=1e-4, atol=1e-5)
    assert ("Categorical(probs: torch.Size([1, 2]), logits: torch.Size([1, 2])) torch.Size([1, 2]) "
            "torch.float32 torch.Size([1]) torch.Size([])") in text
    assert all(0 < e <= math.log(2) + 1e-6 for e in entropies)


def test_reinforce_sampling_learns_to_walk_right():
    """Sampled actions: the libraries draw differently, but each learns, and a seed repeats a run."""
    minigrad.manual_seed(0)
    _, (len1, loss1, *_r) = _run(_reinforce, minigrad, ("cpu", "sample"))
    minigrad.manual_seed(0)
    _, (len2, loss2, *_r) = _run(_reinforce, minigrad, ("cpu", "sample"))
    assert len1 == len2 and loss1 == loss2
    assert min(len1) >= 4 and np.mean(len1[-8:]) < np.mean(len1[:8])
    torch = minigrad
    probs = torch.tensor([[0.2, 0.8]]).expand(4000, 2)
    draws = minigrad.distributions.Categorical(probs).sample()
    assert draws.shape == (4000,) and draws.dtype == minigrad.int64
    assert draws.float().mean().item() == pytest.approx(0.8, abs=0.03)


# --- 8. word2vec skip-gram with negative sampling: Embedding, bmm, logsigmoid --------------------

W2V_TEXT = ("the king rules the land . the queen rules the land . a man walks the dog . "
            "a woman walks the dog . the king and the queen . the man and the woman .").split()


def _word2vec(torch, nn, optim, data, device, negatives_from):
    F = nn.functional
    vocab = sorted(set(W2V_TEXT))
    word2idx = {w: i for i, w in enumerate(vocab)}
    ids = [word2idx[w] for w in W2V_TEXT]
    window = 2
    pairs = [(ids[i], ids[j]) for i in range(len(ids))
             for j in range(max(0, i - window), min(len(ids), i + window + 1)) if j != i]
    counts = torch.bincount(torch.tensor(ids), minlength=len(vocab)).float()
    noise_dist = counts.pow(0.75)
    noise_dist = noise_dist / noise_dist.sum()
    print(len(vocab), len(pairs), f"{noise_dist.max().item():.4f}")

    class SkipGramNeg(nn.Module):
        def __init__(self, n_vocab, n_embed):
            super().__init__()
            self.in_embed = nn.Embedding(n_vocab, n_embed, sparse=False)
            self.out_embed = nn.Embedding(n_vocab, n_embed, sparse=False)
            self.in_embed.weight.data.uniform_(-1, 1)
            self.out_embed.weight.data.uniform_(-1, 1)

        def forward(self, center, context, negatives):
            v = self.in_embed(center).unsqueeze(2)                    # (B, D, 1)
            u = self.out_embed(context).unsqueeze(1)                  # (B, 1, D)
            n = self.out_embed(negatives).neg()                       # (B, K, D)
            pos = F.logsigmoid(torch.bmm(u, v).squeeze())             # (B,)
            neg = F.logsigmoid(torch.bmm(n, v).squeeze(2)).sum(1)     # (B,)
            return -(pos + neg).mean()

    model = init_from_numpy(torch, SkipGramNeg(len(vocab), 8), 9, 0.5).to(device)
    optimizer = optim.Adam(model.parameters(), lr=0.05)
    dataset = data.TensorDataset(torch.tensor([p[0] for p in pairs]), torch.tensor([p[1] for p in pairs]))
    loader = data.DataLoader(dataset, batch_size=32)
    K, rng, losses = 3, np.random.default_rng(0), []
    for epoch in range(4):
        for center, context in loader:
            if negatives_from == "multinomial":
                negatives = torch.multinomial(noise_dist, center.size(0) * K, replacement=True)
            else:  # the compared run: the same draws in both libraries
                negatives = torch.from_numpy(rng.choice(len(vocab), size=center.size(0) * K,
                                                        p=noise_dist.double().numpy() / noise_dist.double().sum().item()))
            negatives = negatives.view(center.size(0), K)
            loss = model(center.to(device), context.to(device), negatives.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        print(f"epoch {epoch} loss {losses[-1]:.4f}")
    emb = model.in_embed.weight.detach()
    normed = F.normalize(emb, dim=1)
    sims = normed @ normed.t()
    king = word2idx["king"]
    sims[king, king] = -1
    best = sims[king].topk(2)
    print("nearest to king:", [vocab[i] for i in best.indices.tolist()])
    cos = F.cosine_similarity(emb[word2idx["man"]], emb[word2idx["woman"]], dim=0)
    return losses, emb, best.values, cos


def test_word2vec_skipgram_with_negative_sampling(device):
    text, (losses, emb, best, cos) = check_on(device, _word2vec, "numpy", rtol=1e-4, atol=1e-5)
    assert text.startswith("12 138 ") and "nearest to king: [" in text
    assert np.mean(losses[-3:]) < np.mean(losses[:3])


def test_word2vec_negatives_drawn_with_multinomial():
    minigrad.manual_seed(2)
    _, (l1, e1, _, _) = _run(_word2vec, minigrad, ("cpu", "multinomial"))
    minigrad.manual_seed(2)
    _, (l2, e2, _, _) = _run(_word2vec, minigrad, ("cpu", "multinomial"))
    assert l1 == l2 and np.mean(l1[-3:]) < np.mean(l1[:3])
    same(e1, e2, 0, 0)


# --- 9. an autoencoder with a straight-through estimator, a buffer, hooks and F.interpolate ---------

AE_RNG = np.random.default_rng(19)
AE_IMAGES = np.clip(AE_RNG.normal(0.5, 0.25, size=(24, 1, 8, 8)), 0, 1).astype(np.float32)


def _ste_autoencoder(torch, nn, optim, data, device):
    F = nn.functional

    class BinarizeSTE(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return (x > 0).float() * 2 - 1

        @staticmethod
        def backward(ctx, grad_output):
            x, = ctx.saved_tensors
            return grad_output * (x.abs() <= 1).to(grad_output.dtype)  # hardtanh's gradient

    class CodeStats(nn.Module):
        """Binarizes the code and tracks how often each channel is on."""
        def __init__(self, channels, momentum=0.1):
            super().__init__()
            self.momentum = momentum
            self.register_buffer("on_rate", torch.full((channels,), 0.5))

        def forward(self, x):
            code = BinarizeSTE.apply(x)
            if self.training:
                with torch.no_grad():
                    rate = (code > 0).float().mean(dim=(0, 2, 3))
                    self.on_rate.mul_(1 - self.momentum).add_(rate, alpha=self.momentum)
            return code

    class AutoEncoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.Tanh(),
                                         nn.Conv2d(4, 4, 3, padding=1))
            self.quant = CodeStats(4)
            self.dec1 = nn.Conv2d(4, 4, 3, padding=1)
            self.dec2 = nn.Conv2d(4, 1, 3, padding=1)

        def forward(self, x):
            code = self.quant(self.encoder(x))                               # (B, 4, 4, 4)
            h = F.relu(self.dec1(code))
            h = F.interpolate(h, scale_factor=2, mode="nearest")             # (B, 4, 8, 8)
            return torch.sigmoid(self.dec2(h)), code

    model = init_from_numpy(torch, AutoEncoder(), 10, 0.3).to(device)
    activations = {}

    def get_activation(name):
        def hook(module, inputs, output):
            activations[name] = output.detach()
        return hook

    handles = [model.encoder.register_forward_hook(get_activation("encoder")),
               model.dec1.register_forward_hook(get_activation("dec1"))]
    optimizer = optim.Adam(model.parameters(), lr=1e-2)
    loader = data.DataLoader(data.TensorDataset(torch.from_numpy(AE_IMAGES)), batch_size=8)
    losses = []
    for epoch in range(5):
        for (x,) in loader:
            x = x.to(device)
            recon, code = model(x)
            loss = F.mse_loss(recon, x)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        print(f"epoch {epoch} loss {loss.item():.5f}", sorted(activations),
              tuple(activations["encoder"].shape), activations["dec1"].requires_grad)
    print(code.grad_fn.__class__.__name__, code.unique().tolist(), model.quant.on_rate.shape,
          list(model.state_dict())[4:5])
    for h in handles:
        h.remove()
    activations.clear()
    model.eval()
    with torch.no_grad():
        recon, code = model(torch.from_numpy(AE_IMAGES[:2]).to(device))
    print(activations, model.quant.on_rate.dtype)
    x = torch.linspace(-2, 2, 5, requires_grad=True)
    BinarizeSTE.apply(x).sum().backward()
    print(x.grad)
    return losses, recon, code, model.quant.on_rate, model.encoder[0].weight.grad


def test_autoencoder_with_a_custom_function_hooks_and_interpolate(device):
    text, (losses, recon, code, on_rate, grad) = check_on(device, _ste_autoencoder, rtol=1e-4, atol=1e-5)
    assert "['dec1', 'encoder'] (8, 4, 4, 4) False" in text
    assert "BinarizeSTEBackward [-1.0, 1.0] torch.Size([4]) ['quant.on_rate']" in text
    assert "{} torch.float32" in text and "tensor([0., 1., 1., 1., 0.])" in text
    assert losses[-1] < losses[0] and ((on_rate > 0) & (on_rate < 1)).all()


# --- 10. early stopping on a random_split validation set; best weights; checkpoint and resume -----

ES_RNG = np.random.default_rng(23)
ES_X = ES_RNG.normal(size=(60, 3)).astype(np.float32)
ES_Y = (np.sin(2 * ES_X[:, :1]) + 0.3 * ES_RNG.normal(size=(60, 1))).astype(np.float32)


def _split(torch, nn, optim, data, seed):
    dataset = data.TensorDataset(torch.from_numpy(ES_X), torch.from_numpy(ES_Y))
    train_set, val_set = data.random_split(dataset, [0.75, 0.25], generator=torch.Generator().manual_seed(seed))
    print(type(train_set).__name__, len(train_set), len(val_set), train_set.dataset is dataset)
    return list(train_set.indices), list(val_set.indices)


def _early_stopping(torch, nn, optim, data, device, tmp_path, train_idx, val_idx):
    dataset = data.TensorDataset(torch.from_numpy(ES_X), torch.from_numpy(ES_Y))
    train_set, val_set = data.Subset(dataset, train_idx), data.Subset(dataset, val_idx)
    train_loader = data.DataLoader(train_set, batch_size=15)
    val_loader = data.DataLoader(val_set, batch_size=15)

    def build():
        model = init_from_numpy(torch, nn.Sequential(nn.Linear(3, 32), nn.ReLU(), nn.Linear(32, 32),
                                                     nn.ReLU(), nn.Linear(32, 1)), 12, 0.4).to(device)
        return model, optim.Adam(model.parameters(), lr=0.02)

    def train_epoch(model, optimizer):
        model.train()
        total = 0.0
        for xb, yb in train_loader:
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(xb)
        return total / len(train_set)

    def evaluate(model):
        model.eval()
        with torch.no_grad():
            return sum(nn.functional.mse_loss(model(xb.to(device)), yb.to(device), reduction="sum").item()
                       for xb, yb in val_loader) / len(val_set)

    model, optimizer = build()
    path = os.path.join(str(tmp_path), f"{torch.__name__}_best.pt")
    best_loss, best_state, best_epoch, patience, bad_epochs = float("inf"), None, -1, 3, 0
    history = []
    for epoch in range(40):
        train_loss = train_epoch(model, optimizer)
        val_loss = evaluate(model)
        history.append((train_loss, val_loss))
        if val_loss < best_loss:
            best_loss, best_epoch, bad_epochs = val_loss, epoch, 0
            best_state = copy.deepcopy(model.state_dict())
            torch.save({"epoch": epoch, "model_state_dict": model.state_dict(),
                        "optimizer_state_dict": optimizer.state_dict(), "loss": val_loss}, path)
        else:
            bad_epochs += 1
            if bad_epochs >= patience:
                print(f"Early stopping at epoch {epoch}; best epoch {best_epoch} val {best_loss:.4f}")
                break
    last_weight = model[0].weight.detach().clone()
    model.load_state_dict(best_state)
    restored = evaluate(model)
    print(f"restored val {restored:.4f}", torch.equal(model[0].weight, last_weight),
          best_state["0.weight"] is model.state_dict()["0.weight"])

    checkpoint = torch.load(path)
    print(sorted(checkpoint), checkpoint["epoch"], f"{checkpoint['loss']:.4f}")
    model2, optimizer2 = build()
    model2.load_state_dict(checkpoint["model_state_dict"])
    optimizer2.load_state_dict(checkpoint["optimizer_state_dict"])
    start_epoch = checkpoint["epoch"] + 1
    print(f"{evaluate(model2):.4f}", optimizer2.state_dict()["state"][0]["step"])
    resumed = [train_epoch(model2, optimizer2) for _ in range(start_epoch, start_epoch + 2)]
    return history, best_epoch, restored, resumed, list(model2.parameters())


def test_random_split_is_a_repeatable_partition():
    text, (train_idx, val_idx) = _run(_split, minigrad, (0,))
    assert text == "Subset 45 15 True\n"
    assert sorted(train_idx + val_idx) == list(range(60))
    assert _run(_split, minigrad, (0,))[1] == (train_idx, val_idx)
    assert _run(_split, minigrad, (1,))[1] != (train_idx, val_idx)
    torch = _torch()
    if torch is not None:
        assert _run(_split, torch, (0,))[0] == text


def test_early_stopping_best_state_checkpoint_and_resume(device, tmp_path):
    """The split comes from minigrad's random_split; both libraries then train on the same subsets."""
    _, (train_idx, val_idx) = _run(_split, minigrad, (0,))
    text, (history, best_epoch, restored, resumed, _) = check_on(
        device, _early_stopping, tmp_path, train_idx, val_idx, rtol=1e-4, atol=1e-5)
    assert "Early stopping at epoch" in text and len(history) < 40
    assert restored == pytest.approx(min(h[1] for h in history)) and history[best_epoch][1] == restored
    assert " False False" in text  # the best weights differ from the last; the copy is deep
    assert "['epoch', 'loss', 'model_state_dict', 'optimizer_state_dict']" in text
    assert f"{restored:.4f} tensor({3 * (best_epoch + 1)}.)" in text
    assert resumed[0] < history[best_epoch][0] * 1.5


# --- 11. hand-written attention: einsum, causal masks with masked_fill, torch.where, indexing -------

def _einsum_attention(torch, nn, optim, data, device):
    F = nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self, d_model=8, n_head=2, block_size=6):
            super().__init__()
            self.n_head, self.d_head = n_head, d_model // n_head
            self.qkv = nn.Linear(d_model, 3 * d_model)
            self.proj = nn.Linear(d_model, d_model)
            self.register_buffer("mask", torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size))

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.qkv(x).split(C, dim=2)
            q, k, v = (t.view(B, T, self.n_head, self.d_head).transpose(1, 2) for t in (q, k, v))
            att = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(self.d_head)
            att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
            att = F.softmax(att, dim=-1)
            y = torch.einsum("bhqk,bhkd->bhqd", att, v)
            return self.proj(y.transpose(1, 2).contiguous().view(B, T, C)), att

    class TinyGPT(nn.Module):
        def __init__(self, vocab=6, d_model=8):
            super().__init__()
            self.tok = nn.Embedding(vocab, d_model)
            self.pos = nn.Parameter(torch.zeros(1, 6, d_model))
            self.ln = nn.LayerNorm(d_model)
            self.attn = CausalSelfAttention(d_model)
            self.head = nn.Linear(d_model, vocab, bias=False)

        def forward(self, idx, targets=None):
            x = self.tok(idx) + self.pos[:, :idx.size(1)]
            h, att = self.attn(self.ln(x))
            logits = self.head(x + h)
            loss = None
            if targets is not None:
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
            return logits, loss, att

    model = init_from_numpy(torch, TinyGPT(), 14, 0.3).to(device)
    seqs = torch.tensor([[0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0], [0, 2, 4, 0, 2, 4]], device=device)
    targets = torch.roll(seqs, -1, dims=1)
    targets[:, -1] = -1                                   # no target after the last token
    optimizer = optim.SGD(model.parameters(), lr=0.5)
    losses = []
    for step in range(15):
        logits, loss, att = model(seqs, targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")
    print(att[0, 0, :3, :3])
    upper = torch.triu(torch.ones(6, 6, dtype=torch.bool, device=device), diagonal=1)
    print(bool((att[:, :, upper] == 0).all()), att.sum(-1).allclose(torch.ones(3, 2, 6, device=device)))
    with torch.no_grad():
        logits, _, _ = model(seqs)
        last = logits[:, -1, :]
        rows = torch.arange(3, device=device)
        picked = last[rows, seqs[:, 0]]                   # integer-array indexing
        picked2 = last[[0, 2], 1:4]                       # a list and a slice
        clipped = torch.where(last > 0, last, torch.zeros_like(last))
        masked = last.masked_fill(last < last.mean(), 0.0)
        scaled = last[1] * 0.5 + seqs[1].float()          # mixed int/float
    print(picked.shape, picked2.shape, clipped.min().item() >= 0, (seqs[0] * 1.5).dtype, (seqs[0] / 2).dtype)
    return losses, att, picked, picked2, clipped, masked, scaled, list(model.parameters())


def test_einsum_attention_with_causal_mask_where_and_indexing(device):
    text, (losses, att, *_rest) = check_on(device, _einsum_attention, rtol=1e-4, atol=1e-5)
    assert "True True" in text and "torch.Size([3]) torch.Size([2, 3]) True torch.float32 torch.float32" in text
    assert losses[-1] < 0.7 * losses[0]


# --- regressions found by these programs ------------------------------------------------------------

@pytest.mark.skipif(not minigrad.cuda.is_available(), reason="needs CUDA (or the emulated device)")
def test_a_cpu_value_assigned_to_a_basic_index_of_a_cuda_tensor():
    """x[:, 0] = cpu_tensor copies into the view (torch's copy_ crosses devices), and the gradient
    reaches the CPU source; an advanced index takes a 0-d CPU value, and wants any other value on
    the tensor's device (index_put_). The
    VAE program's `z[:, 0] = torch.linspace(-2, 2, 4)` raised the device error."""
    z = minigrad.zeros(4, 2, device="cuda")
    src = minigrad.linspace(-2, 2, 4, requires_grad=True)
    z[:, 0] = src * 1
    z[1:3, 1] = minigrad.tensor(7.0)
    z[0] = minigrad.tensor([5, 6])  # an int64 value, converted as torch does
    assert z.device.type == "cuda" and z.grad_fn.name() == "CopySlices"
    np.testing.assert_allclose(z.cpu().detach().numpy(), [[5, 6], [-2 / 3, 7], [2 / 3, 7], [2, 0]], rtol=1e-6)
    (z * minigrad.arange(8.0, device="cuda").view(4, 2)).sum().backward()
    assert src.grad.device.type == "cpu"
    np.testing.assert_allclose(src.grad.numpy(), [0, 2, 4, 6])
    z[minigrad.tensor([0, 3], device="cuda"), 1] = minigrad.tensor(-1.0)  # a 0-d value is moved
    assert z[:, 1].tolist() == [-1, 7, 7, -1]
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        z[minigrad.tensor([0, 1], device="cuda")] = minigrad.ones(2, 2)
