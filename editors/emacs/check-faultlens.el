;;; check-faultlens.el --- headless check of faultlens.el with eglot  -*- lexical-binding: t; -*-

;; Used by server/cli/tests/lsp_emacs.rs:
;;   FAULTLENS_REPO=... FAULTLENS_BIN=... FAULTLENS_FILE=.../mid.c FAULTLENS_FAULT_LINE=22 \
;;   emacs --batch -q -l editors/emacs/check-faultlens.el
;; Opens the file, starts eglot with faultlens, and checks diagnostics, hover
;; and the ranking request.  Prints one line per finding and exits 1 when
;; something is missing.

;;; Code:

(setq faultlens-command (list (getenv "FAULTLENS_BIN") "lsp"))
(add-to-list 'load-path (expand-file-name "editors/emacs" (getenv "FAULTLENS_REPO")))
(require 'faultlens)
(require 'seq)
(setq eglot-sync-connect 20)

(defvar check-errors nil)

(defun check-fail (msg)
  (push msg check-errors))

(defun check-wait (pred secs)
  "Pump process output until PRED is non-nil or SECS pass."
  (let ((deadline (+ (float-time) secs)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall pred)))

(condition-case err
    (progn
      (find-file (getenv "FAULTLENS_FILE"))
      (c-mode)
      (apply #'eglot (eglot--guess-contact))
      (let ((server (eglot-current-server))
            (fault (string-to-number (getenv "FAULTLENS_FAULT_LINE"))))
        (unless server (error "eglot did not connect"))
        (unless (check-wait (lambda () (flymake-start) (flymake-diagnostics)) 30)
          (check-fail "no diagnostics"))
        (let ((top (seq-find (lambda (d)
                               (and (= (line-number-at-pos (flymake-diagnostic-beg d)) fault)
                                    (string-match-p "#1 of" (flymake-diagnostic-text d))))
                             (flymake-diagnostics))))
          (if top
              (princ (format "DIAGNOSTIC %d %s %s\n" fault (flymake-diagnostic-type top) (flymake-diagnostic-text top)))
            (check-fail "no #1 diagnostic on the faulty line")))
        (goto-char (point-min))
        (forward-line (1- fault))
        (back-to-indentation)
        (let* ((hover (jsonrpc-request server :textDocument/hover (eglot--TextDocumentPositionParams)))
               (text (plist-get (plist-get hover :contents) :value)))
          (if (and text (string-match-p "#1 of" text))
              (princ (format "HOVER %s\n" (car (split-string text "\n"))))
            (check-fail (format "hover lacks the rank: %S" text))))
        (let ((ranking (jsonrpc-request server :faultlens/ranking nil)))
          (princ (format "RANKING %s %s\n" (plist-get ranking :measure)
                         (plist-get (plist-get ranking :tests) :failed))))
        (check-wait (lambda () faultlens-last-status) 5)
        (princ (format "STATUS %s\n" (plist-get faultlens-last-status :state)))))
  (error (check-fail (format "error: %S" err))))

(dolist (e check-errors) (princ (format "ERROR %s\n" e)))
(kill-emacs (if check-errors 1 0))

;;; check-faultlens.el ends here
