;;; emacs_session.el --- driven by test_emacs.py  -*- lexical-binding: t; -*-
;; Emacs in batch mode with memory-lsp.el loaded: open app/core.py (under eglot with the user's
;; own Python server too, when $USER_SERVER names one), then the hover on `parse', the flymake
;; diagnostics, :impact, teaching with the prompt and through the draft; what it saw goes to $OUT.
(require 'json)
(setq memory-lsp-command (list (getenv "SERVER") "serve"))
(defvar session-out nil)
(defun session-put (key value) (push (cons key value) session-out))
(defun session-wait (seconds predicate)
  "Let the processes talk until PREDICATE holds (its value) or SECONDS pass (nil)."
  (let ((deadline (+ (float-time) seconds)) value)
    (while (and (not (setq value (funcall predicate))) (< (float-time) deadline))
      (accept-process-output nil 0.1))
    value))

(condition-case err
    (let* ((proj (getenv "PROJ")) (user-server (getenv "USER_SERVER")))
      (find-file (expand-file-name "app/core.py" proj))
      ;; as python-mode-hook runs them: memory-lsp-mode at once, eglot after the command
      (memory-lsp-mode 1)
      (when user-server  ; the user's own language server, under eglot
        (require 'eglot)
        (setq eglot-server-programs `((python-mode . (,user-server))))
        (eglot-ensure)
        (run-hooks 'post-command-hook)
        (session-put 'eglot (and (session-wait 30 (lambda () (eglot-managed-p))) t)))
      (session-put 'hooks (vector (and (memq #'memory-lsp-flymake flymake-diagnostic-functions) t)
                                (and (memq #'memory-lsp-eldoc eldoc-documentation-functions) t)))
      (flymake-start)
      (goto-char (point-min)) (forward-line 3) (forward-char 5)  ; on `parse'
      (session-put 'hover (session-wait 40 (lambda () (let ((text (ignore-errors (memory-lsp-hover))))
                                                        (and text (string-match-p "comma" text) text)))))
      (let (doc)  ; the same through eldoc, as the echo area gets it
        (memory-lsp-eldoc (lambda (text &rest _) (setq doc text)))
        (session-put 'eldoc (session-wait 20 (lambda () doc))))
      (session-put 'flymake (session-wait 20 (lambda () (mapcar (lambda (d) (vector (line-number-at-pos (flymake-diagnostic-beg d))
                                                                                  (symbol-name (flymake-diagnostic-type d))
                                                                                  (flymake-diagnostic-text d)))
                                                                (flymake-diagnostics)))))
      (when user-server
        (session-put 'eglot_server (process-command (jsonrpc--process (eglot-current-server))))
        (session-put 'still_eglot (eglot-managed-p)))
      (session-put 'impact (session-wait 30 (lambda () (let ((rows (memory-lsp-impact (memory-lsp--target-at-point))))
                                                         (and (>= (length rows) 2) (mapcar #'vconcat rows))))))
      (session-put 'reads (mapcar #'vconcat (append (memory-lsp-impact "app/hooks.py::Hooks.on_add")
                                                    (memory-lsp-impact "app/hooks.py::log_row"))))
      (session-put 'prompted (plist-get (memory-lsp-teach (getenv "PROMPT_TEXT") "dead_end"
                                                          (point) (save-excursion (forward-line 2) (point)))
                                        :id))
      ;; the draft: the code action in Store.add, the user picks "Teach a memory", the server shows the draft
      (goto-char (point-min)) (forward-line 12) (forward-char 8)
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (_prompt titles &rest _) (session-put 'actions titles)
                   (or (cl-find-if (lambda (x) (string-prefix-p "Teach a memory" x)) titles) (car titles)))))
        (session-put 'opened (plist-get (memory-lsp-code-actions) :opened)))
      (with-current-buffer (window-buffer (selected-window))  ; where window/showDocument put the draft
        (let ((draft buffer-file-name))
          (session-put 'draft draft)
          (session-put 'draft_mode memory-lsp-mode)
          (goto-char (point-max))
          (insert (getenv "DRAFT_TEXT") "\n")
          (save-buffer)
          (session-put 'draft_deleted (and (session-wait 20 (lambda () (not (file-exists-p draft)))) t))))
      (memory-lsp-shutdown))
  (error (session-put 'error (format "%S" err))))
(let ((coding-system-for-write 'utf-8))
  (with-temp-file (getenv "OUT") (insert (json-encode session-out))))
(kill-emacs 0)
